using System.Buffers.Binary;
using System.Text;
using Prewire.Amqp.Internal;

namespace Prewire.Messaging.Internal;

/// <summary>
/// Reads a delivery's message-id and string headers straight from its content header's property
/// bytes into a dictionary the caller keeps, without the field table and the properties object a full
/// read makes. Keys, and values whose bytes are those of the last delivery (a content type, a message
/// type) or of the message id, are the strings already made: a delivery from our publisher costs its
/// message id and its time sent. A header of another type than a string returns false, for the full read;
/// our publisher's sequence tag on a mandatory publish is skipped, as the full read skips it
/// (<see cref="FieldTables.ToHeaders"/>).
/// </summary>
internal sealed class DeliveryHeaderReader
{
    private static readonly byte[] _sequenceTag = Encoding.UTF8.GetBytes(Amqp.Internal.PublishChannel.SequenceHeader);

    private readonly List<Entry> _entries = [];

    /// <summary>Fills <paramref name="headers"/>; false when the properties hold a header that is not a string, or are malformed.</summary>
    public bool TryRead(ReadOnlySpan<byte> properties, Dictionary<string, string> headers, out string messageId)
    {
        headers.Clear();
        messageId = "";
        if (!TryLocate(properties, out var table, out var id)) return false;
        if (!id.IsEmpty) messageId = Encoding.UTF8.GetString(id);
        while (!table.IsEmpty)
        {
            int keyLength = table[0];
            if (table.Length < 2 + keyLength) return false;
            var key = table.Slice(1, keyLength);
            var type = table[1 + keyLength];
            table = table[(2 + keyLength)..];
            if (type == (byte)'l' && key.SequenceEqual(_sequenceTag))
            {
                if (table.Length < 8) return false;
                table = table[8..];
                continue;
            }
            ReadOnlySpan<byte> value;
            switch (type)
            {
                case (byte)'S':
                    if (table.Length < 4) return false;
                    var length = BinaryPrimitives.ReadUInt32BigEndian(table);
                    if (length > (uint)table.Length - 4) return false;
                    value = table.Slice(4, (int)length);
                    table = table[(4 + (int)length)..];
                    break;
                case (byte)'V':
                    value = default;
                    break;
                default:
                    return false;
            }
            var entry = EntryFor(key);
            headers[entry.Key] = !id.IsEmpty && value.SequenceEqual(id) ? messageId : entry.Value.Get(value);
        }
        return true;
    }

    // The headers table's entries and the message id's bytes, skipping the other properties by their flags.
    private static bool TryLocate(ReadOnlySpan<byte> properties, out ReadOnlySpan<byte> table, out ReadOnlySpan<byte> messageId)
    {
        table = default;
        messageId = default;
        if (properties.Length < 2) return false;
        var flags = BinaryPrimitives.ReadUInt16BigEndian(properties);
        var rest = properties[2..];
        for (var bit = 15; bit >= 7; bit--)
        {
            if ((flags & (1 << bit)) == 0) continue;
            switch (bit)
            {
                case 13:
                    if (rest.Length < 4) return false;
                    var length = BinaryPrimitives.ReadUInt32BigEndian(rest);
                    if (length > (uint)rest.Length - 4) return false;
                    table = rest.Slice(4, (int)length);
                    rest = rest[(4 + (int)length)..];
                    break;
                case 12 or 11:
                    if (rest.IsEmpty) return false;
                    rest = rest[1..];
                    break;
                default:
                    // A short string: content-type, content-encoding, correlation-id, reply-to, expiration, message-id.
                    if (rest.IsEmpty || rest.Length < 1 + rest[0]) return false;
                    if (bit == 7) messageId = rest.Slice(1, rest[0]);
                    rest = rest[(1 + rest[0])..];
                    break;
            }
        }
        return true;
    }

    private Entry EntryFor(ReadOnlySpan<byte> key)
    {
        foreach (var entry in _entries)
        {
            if (key.SequenceEqual(entry.KeyBytes)) return entry;
        }
        var added = new Entry(key.ToArray());
        // A few keys recur; a publisher that invents keys per message must not grow this without end.
        if (_entries.Count < 64) _entries.Add(added);
        return added;
    }

    private sealed class Entry(byte[] key)
    {
        public byte[] KeyBytes { get; } = key;

        public string Key { get; } = Encoding.UTF8.GetString(key);

        /// <summary>The value of this key in the last delivery that had it.</summary>
        public LastString Value { get; } = new();
    }
}
