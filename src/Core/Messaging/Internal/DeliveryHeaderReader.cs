using System.Buffers.Binary;
using System.Text;

namespace Prewire.Messaging.Internal;

/// <summary>
/// Reads a delivery's message id and locates its string headers straight in its content header's
/// property bytes, without the field table and the properties object a full read makes: the message id
/// is the one string made per delivery; a header's value is made when asked (<see cref="ReceivedHeaders"/>),
/// the same string as last time when its bytes are, and a header whose value is the message id is that
/// string. An integer header (RabbitMQ.Client's publish sequence number, a quorum queue's delivery
/// count) is located too, its text made when asked; a header of any other type returns false, for the
/// full read. Our publisher's sequence tag on a mandatory publish is skipped, as the full read skips it
/// (<see cref="FieldTables.ToHeaders"/>).
/// </summary>
internal sealed class DeliveryHeaderReader
{
    private static readonly byte[] _sequenceTag = Encoding.UTF8.GetBytes(Amqp.Internal.PublishChannel.SequenceHeader);

    private readonly List<ReceivedHeaders.Key> _keys = [];

    /// <summary>Fills <paramref name="headers"/>; false when the properties hold a header that is not a string, or are malformed.</summary>
    public bool TryRead(ReadOnlyMemory<byte> properties, ReceivedHeaders headers, out string messageId)
    {
        headers.Reset(properties);
        messageId = "";
        var span = properties.Span;
        if (!TryLocate(span, out var tableStart, out var tableLength, out var id)) return false;
        if (!id.IsEmpty) messageId = Encoding.UTF8.GetString(id);
        var (at, end) = (tableStart, tableStart + tableLength);
        while (at < end)
        {
            int keyLength = span[at];
            if (end - at < 2 + keyLength) return false;
            var key = span.Slice(at + 1, keyLength);
            var type = span[at + 1 + keyLength];
            at += 2 + keyLength;
            if (type == (byte)'l' && key.SequenceEqual(_sequenceTag))
            {
                if (end - at < 8) return false;
                at += 8;
                continue;
            }
            int start, length;
            switch (type)
            {
                case (byte)'S':
                    if (end - at < 4) return false;
                    var declared = BinaryPrimitives.ReadUInt32BigEndian(span[at..]);
                    if (declared > (uint)(end - at - 4)) return false;
                    (start, length) = (at + 4, (int)declared);
                    at = start + length;
                    break;
                case (byte)'V':
                    (start, length) = (at, 0);
                    break;
                default:
                    // Every message RabbitMQ.Client publishes carries an integer (x-dotnet-pub-seq-no): taking
                    // the full read for it cost the Consumer 2.4 KB per message more.
                    length = ReceivedHeaders.IntegerSize(type);
                    if (length == 0 || end - at < length) return false;
                    start = at;
                    at += length;
                    headers.Add(KeyFor(key), start, length, null, type);
                    continue;
            }
            var value = span.Slice(start, length);
            headers.Add(KeyFor(key), start, length, !id.IsEmpty && value.SequenceEqual(id) ? messageId : null);
        }
        return true;
    }

    // Where the headers table's entries lie and the message id's bytes, skipping the other properties by their flags.
    private static bool TryLocate(ReadOnlySpan<byte> properties, out int tableStart, out int tableLength, out ReadOnlySpan<byte> messageId)
    {
        (tableStart, tableLength) = (0, 0);
        messageId = default;
        if (properties.Length < 2) return false;
        var flags = BinaryPrimitives.ReadUInt16BigEndian(properties);
        var at = 2;
        for (var bit = 15; bit >= 7; bit--)
        {
            if ((flags & (1 << bit)) == 0) continue;
            switch (bit)
            {
                case 13:
                    if (properties.Length - at < 4) return false;
                    var length = BinaryPrimitives.ReadUInt32BigEndian(properties[at..]);
                    if (length > (uint)(properties.Length - at - 4)) return false;
                    (tableStart, tableLength) = (at + 4, (int)length);
                    at = tableStart + tableLength;
                    break;
                case 12 or 11:
                    if (at >= properties.Length) return false;
                    at++;
                    break;
                default:
                    // A short string: content-type, content-encoding, correlation-id, reply-to, expiration, message-id.
                    if (at >= properties.Length || properties.Length - at < 1 + properties[at]) return false;
                    if (bit == 7) messageId = properties.Slice(at + 1, properties[at]);
                    at += 1 + properties[at];
                    break;
            }
        }
        return true;
    }

    private ReceivedHeaders.Key KeyFor(ReadOnlySpan<byte> bytes)
    {
        foreach (var key in _keys)
        {
            if (bytes.SequenceEqual(key.Bytes)) return key;
        }
        var added = new ReceivedHeaders.Key(bytes.ToArray());
        // A few keys recur; a publisher that invents keys per message must not grow this without end.
        if (_keys.Count < 64) _keys.Add(added);
        return added;
    }
}
