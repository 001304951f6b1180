using System.Text;
using Prewire.Amqp;
using Prewire.Framing.Internal;

namespace Prewire.Messaging.Internal;

/// <summary>
/// Reads a delivery's message id and locates its string headers straight in its content header's
/// property bytes, without the field table and the properties object a full read makes: a message id of
/// 32 lowercase hex digits is read as a value (<see cref="HexMessageId"/>), any other as the one string
/// made per delivery; a header's value is made when asked (<see cref="ReceivedHeaders"/>), the same
/// string as last time when its bytes are, and a header whose value is a text message id is that string.
/// An integer header (RabbitMQ.Client's publish sequence number, a quorum queue's delivery count) is
/// located too, its text made when asked; a header of any other type returns false, for the full read.
/// Our publisher's sequence tag on a mandatory publish is skipped, as the full read skips it
/// (<see cref="FieldTables.ToHeaders"/>).
/// </summary>
internal sealed class DeliveryHeaderReader
{
    private static readonly byte[] _sequenceTag = Encoding.UTF8.GetBytes(AmqpPublisher.SequenceHeader);

    private readonly List<ReceivedHeaders.Key> _keys = [];

    /// <summary>
    /// Fills <paramref name="headers"/> and reads the message id: its text ("" for none), or null with
    /// <paramref name="hexId"/> its value. False when the properties hold a header that is not text or an
    /// integer, or are malformed.
    /// </summary>
    public bool TryRead(ReadOnlyMemory<byte> properties, ReceivedHeaders headers, out string? messageId, out Guid hexId)
    {
        headers.Reset(properties);
        (messageId, hexId) = ("", default);
        var span = properties.Span;
        if (!PropertyCodec.TryLocate(span, out var tableStart, out var tableLength, out var id)) return false;
        if (HexMessageId.TryParse(id, out hexId)) messageId = null;
        else if (!id.IsEmpty) messageId = Encoding.UTF8.GetString(id);
        // Positions count from the start of the property bytes, where ReceivedHeaders finds the values.
        var table = span[..(tableStart + tableLength)];
        for (var at = tableStart; at < table.Length;)
        {
            // Every message RabbitMQ.Client publishes carries an integer (x-dotnet-pub-seq-no): taking the
            // full read for it cost the Consumer 2.4 KB per message more.
            if (!FieldTable.TryReadEntry(table, ref at, out var key, out var type, out var start, out var length)) return false;
            if (key.SequenceEqual(_sequenceTag)) continue;
            var isMessageId = messageId is { Length: > 0 } && FieldTable.IsText(type) && table.Slice(start, length).SequenceEqual(id);
            headers.Add(KeyFor(key), start, length, isMessageId ? messageId : null, type);
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
