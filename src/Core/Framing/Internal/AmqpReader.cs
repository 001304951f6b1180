using System.Buffers;
using System.Text;

namespace Prewire.Framing.Internal;

/// <summary>
/// Reads AMQP 0-9-1 primitive types from a frame payload. Every length is checked against what is
/// left before anything is allocated, so malformed input fails with <see cref="AmqpProtocolException"/>
/// naming what ran short, never with an out-of-range index or an oversized allocation.
/// </summary>
internal ref struct AmqpReader
{
    /// <summary>How deep field tables and arrays may nest.</summary>
    public const int MaxTableDepth = 16;

    private SequenceReader<byte> _reader;

    /// <summary>Reads <paramref name="payload"/> from its start.</summary>
    public AmqpReader(ReadOnlySequence<byte> payload) => _reader = new SequenceReader<byte>(payload);

    /// <summary>Bytes not read yet.</summary>
    public readonly long Remaining => _reader.Remaining;

    internal int Depth { get; set; }

    /// <summary>An octet.</summary>
    public byte ReadOctet() => _reader.TryRead(out var value) ? value : throw Truncated("an octet");

    /// <summary>A 16-bit unsigned integer.</summary>
    public ushort ReadShort() => _reader.TryReadBigEndian(out short value) ? (ushort)value : throw Truncated("a short");

    /// <summary>A 32-bit unsigned integer.</summary>
    public uint ReadLong() => _reader.TryReadBigEndian(out int value) ? (uint)value : throw Truncated("a long");

    /// <summary>A 64-bit unsigned integer.</summary>
    public ulong ReadLongLong() => _reader.TryReadBigEndian(out long value) ? (ulong)value : throw Truncated("a long-long");

    /// <summary>A short string, decoded as UTF-8.</summary>
    public string ReadShortString()
    {
        var length = ReadOctet();
        return Encoding.UTF8.GetString(Take(length, "a short string"));
    }

    /// <summary>A long string's bytes.</summary>
    public byte[] ReadLongString()
    {
        var length = ReadLong();
        return Take(length, "a long string").ToArray();
    }

    /// <summary>A field table.</summary>
    public Dictionary<string, object?> ReadTable() => FieldTable.Read(ref this);

    /// <summary>Raw bytes of a known length.</summary>
    public ReadOnlySequence<byte> ReadBytes(long length) => Take(length, "bytes");

    /// <summary>Throws unless every byte was read: methods and headers have an exact size.</summary>
    public readonly void EnsureConsumed(string what)
    {
        if (_reader.Remaining != 0) throw new AmqpProtocolException($"{what} has {_reader.Remaining} unexpected trailing byte(s).");
    }

    private ReadOnlySequence<byte> Take(long length, string what)
    {
        if (length > _reader.Remaining)
            throw new AmqpProtocolException($"{what} of {length} bytes runs past the end of its frame ({_reader.Remaining} bytes left).");
        var slice = _reader.UnreadSequence.Slice(0, length);
        _reader.Advance(length);
        return slice;
    }

    private readonly AmqpProtocolException Truncated(string what) =>
        new($"the frame ends where {what} was expected ({_reader.Remaining} bytes left).");
}
