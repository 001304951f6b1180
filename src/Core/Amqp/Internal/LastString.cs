using System.Buffers;
using System.Text;

namespace Prewire.Amqp.Internal;

/// <summary>
/// A string read from UTF-8 bytes that is the same string object as last time when the bytes are the
/// same: the exchange and routing key of a consumer's deliveries, a header's value, allocate once for
/// as long as they repeat.
/// </summary>
internal sealed class LastString
{
    private byte[] _bytes = [];
    private string _value = "";

    public string Get(ReadOnlySpan<byte> utf8)
    {
        if (utf8.SequenceEqual(_bytes)) return _value;
        _bytes = utf8.ToArray();
        _value = Encoding.UTF8.GetString(utf8);
        return _value;
    }

    /// <summary>A short string (at most 255 bytes) that may lie across two pipe blocks.</summary>
    public string Get(in ReadOnlySequence<byte> utf8)
    {
        if (utf8.IsSingleSegment) return Get(utf8.FirstSpan);
        Span<byte> joined = stackalloc byte[byte.MaxValue];
        utf8.CopyTo(joined);
        return Get(joined[..(int)utf8.Length]);
    }
}
