using System.Buffers.Binary;

namespace Prewire.Testing;

/// <summary>
/// Reads protobuf's wire format field by field (varint, 64-bit, length-delimited, 32-bit): enough to
/// decode what an OTLP exporter sends without its .proto files or a generated parser.
/// </summary>
public ref struct ProtobufReader(ReadOnlySpan<byte> data)
{
    private readonly ReadOnlySpan<byte> _data = data;
    private int _at;

    /// <summary>The next field's number and wire type; false at the end.</summary>
    public bool TryReadTag(out int field, out int wireType)
    {
        (field, wireType) = (0, 0);
        if (_at >= _data.Length) return false;
        var tag = ReadVarint();
        (field, wireType) = ((int)(tag >> 3), (int)(tag & 7));
        return true;
    }

    public ulong ReadVarint()
    {
        ulong value = 0;
        for (var shift = 0; shift < 64; shift += 7)
        {
            if (_at >= _data.Length) throw new InvalidDataException("a varint runs past the end");
            var b = _data[_at++];
            value |= (ulong)(b & 0x7F) << shift;
            if ((b & 0x80) == 0) return value;
        }
        throw new InvalidDataException("a varint longer than 10 bytes");
    }

    public ulong ReadFixed64()
    {
        var value = BinaryPrimitives.ReadUInt64LittleEndian(Take(8));
        return value;
    }

    public ReadOnlySpan<byte> ReadBytes() => Take(checked((int)ReadVarint()));

    public string ReadString() => System.Text.Encoding.UTF8.GetString(ReadBytes());

    /// <summary>Skips a field of <paramref name="wireType"/> this decoder has no use for.</summary>
    public void Skip(int wireType)
    {
        switch (wireType)
        {
            case 0: ReadVarint(); break;
            case 1: Take(8); break;
            case 2: ReadBytes(); break;
            case 5: Take(4); break;
            default: throw new InvalidDataException($"wire type {wireType}");
        }
    }

    private ReadOnlySpan<byte> Take(int length)
    {
        if (length < 0 || _data.Length - _at < length) throw new InvalidDataException("a field runs past the end");
        var taken = _data.Slice(_at, length);
        _at += length;
        return taken;
    }
}
