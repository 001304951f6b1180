using System.Text;

namespace Prewire.Amqp.Internal;

/// <summary>
/// A string read from UTF-8 bytes that is the same string object as last time when the bytes are the
/// same: the exchange and routing key of a consumer's deliveries, a header's value, allocate once for
/// as long as they repeat. A value that changes each time costs its string, not a copy of its bytes too.
/// </summary>
internal sealed class LastString
{
    // A time sent (33 bytes) or a message id (32) fits the first buffer; longer values grow it up to
    // the limit, beyond which a value is read but not kept, so one huge header holds no memory.
    private const int KeptLimit = 1024;

    private byte[] _bytes = new byte[64];
    private int _length;
    private string _value = "";

    public string Get(ReadOnlySpan<byte> utf8)
    {
        if (utf8.SequenceEqual(_bytes.AsSpan(0, _length))) return _value;
        var value = Encoding.UTF8.GetString(utf8);
        if (utf8.Length > _bytes.Length)
        {
            if (utf8.Length > KeptLimit) return value;
            _bytes = new byte[Math.Min(KeptLimit, Math.Max(utf8.Length, _bytes.Length * 2))];
        }
        utf8.CopyTo(_bytes);
        (_length, _value) = (utf8.Length, value);
        return value;
    }
}
