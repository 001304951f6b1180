using System.Buffers.Binary;
using Prewire.Amqp;

namespace Prewire.Framing.Internal;

/// <summary>
/// The properties of class <c>basic</c> on the wire: a 16-bit word of flags, bit 15 first, one for each
/// property present, then the present ones in bit order. The one place their flags are read or written.
/// </summary>
internal static class PropertyCodec
{
    private static ushort Flags(BasicProperties properties, bool extraHeader) =>
        (ushort)((properties.ContentType is null ? 0 : 1 << 15) | (properties.ContentEncoding is null ? 0 : 1 << 14) | (properties.Headers is null && !extraHeader ? 0 : 1 << 13)
            | (properties.DeliveryMode is null ? 0 : 1 << 12) | (properties.Priority is null ? 0 : 1 << 11) | (properties.CorrelationId is null ? 0 : 1 << 10)
            | (properties.ReplyTo is null ? 0 : 1 << 9) | (properties.Expiration is null ? 0 : 1 << 8) | (properties.MessageId is null && properties.MessageIdUtf8 is null ? 0 : 1 << 7)
            | (properties.Timestamp is null ? 0 : 1 << 6) | (properties.Type is null ? 0 : 1 << 5) | (properties.UserId is null ? 0 : 1 << 4)
            | (properties.AppId is null ? 0 : 1 << 3) | (properties.ClusterId is null ? 0 : 1 << 2));

    public static int GetSize(BasicProperties properties, string? extraHeader = null)
    {
        var size = 2;
        if (properties.ContentType is not null) size += AmqpWriter.ShortStringSize(properties.ContentType);
        if (properties.ContentEncoding is not null) size += AmqpWriter.ShortStringSize(properties.ContentEncoding);
        if (properties.Headers is not null || extraHeader is not null) size += FieldTable.GetSize(properties.Headers, extraHeader);
        if (properties.DeliveryMode is not null) size += 1;
        if (properties.Priority is not null) size += 1;
        if (properties.CorrelationId is not null) size += AmqpWriter.ShortStringSize(properties.CorrelationId);
        if (properties.ReplyTo is not null) size += AmqpWriter.ShortStringSize(properties.ReplyTo);
        if (properties.Expiration is not null) size += AmqpWriter.ShortStringSize(properties.Expiration);
        if (properties.MessageId is not null) size += AmqpWriter.ShortStringSize(properties.MessageId);
        else if (properties.MessageIdUtf8 is not null) size += 1 + properties.MessageIdUtf8.Length;
        if (properties.Timestamp is not null) size += 8;
        if (properties.Type is not null) size += AmqpWriter.ShortStringSize(properties.Type);
        if (properties.UserId is not null) size += AmqpWriter.ShortStringSize(properties.UserId);
        if (properties.AppId is not null) size += AmqpWriter.ShortStringSize(properties.AppId);
        if (properties.ClusterId is not null) size += AmqpWriter.ShortStringSize(properties.ClusterId);
        return size;
    }

    public static void Write(ref AmqpWriter writer, BasicProperties properties, string? extraHeader = null, long extraValue = 0)
    {
        writer.WriteShort(Flags(properties, extraHeader is not null));
        if (properties.ContentType is not null) writer.WriteShortString(properties.ContentType);
        if (properties.ContentEncoding is not null) writer.WriteShortString(properties.ContentEncoding);
        if (properties.Headers is not null || extraHeader is not null) FieldTable.Write(ref writer, properties.Headers, extraHeader, extraValue);
        if (properties.DeliveryMode is { } deliveryMode) writer.WriteOctet(deliveryMode);
        if (properties.Priority is { } priority) writer.WriteOctet(priority);
        if (properties.CorrelationId is not null) writer.WriteShortString(properties.CorrelationId);
        if (properties.ReplyTo is not null) writer.WriteShortString(properties.ReplyTo);
        if (properties.Expiration is not null) writer.WriteShortString(properties.Expiration);
        if (properties.MessageId is not null) writer.WriteShortString(properties.MessageId);
        else if (properties.MessageIdUtf8 is not null) writer.WriteShortString(properties.MessageIdUtf8);
        if (properties.Timestamp is { } timestamp) writer.WriteLongLong(timestamp.UnixSeconds);
        if (properties.Type is not null) writer.WriteShortString(properties.Type);
        if (properties.UserId is not null) writer.WriteShortString(properties.UserId);
        if (properties.AppId is not null) writer.WriteShortString(properties.AppId);
        if (properties.ClusterId is not null) writer.WriteShortString(properties.ClusterId);
    }

    public static BasicProperties Read(ref AmqpReader reader)
    {
        var flags = reader.ReadShort();
        if ((flags & 1) != 0) throw new AmqpProtocolException("basic properties flags continue into a second word; class basic has no properties there.");
        if ((flags & 2) != 0) throw new AmqpProtocolException("basic properties flag bit 1 is set; it names no property.");
        bool Has(int bit) => (flags & (1 << bit)) != 0;
        return new BasicProperties
        {
            ContentType = Has(15) ? reader.ReadShortString() : null,
            ContentEncoding = Has(14) ? reader.ReadShortString() : null,
            Headers = Has(13) ? reader.ReadTable() : null,
            DeliveryMode = Has(12) ? reader.ReadOctet() : null,
            Priority = Has(11) ? reader.ReadOctet() : null,
            CorrelationId = Has(10) ? reader.ReadShortString() : null,
            ReplyTo = Has(9) ? reader.ReadShortString() : null,
            Expiration = Has(8) ? reader.ReadShortString() : null,
            MessageId = Has(7) ? reader.ReadShortString() : null,
            Timestamp = Has(6) ? new AmqpTimestamp(reader.ReadLongLong()) : null,
            Type = Has(5) ? reader.ReadShortString() : null,
            UserId = Has(4) ? reader.ReadShortString() : null,
            AppId = Has(3) ? reader.ReadShortString() : null,
            ClusterId = Has(2) ? reader.ReadShortString() : null,
        };
    }

    /// <summary>
    /// Where the headers table's entries lie in a content header's property bytes, and the message-id's
    /// bytes, the other properties skipped by their flags: no properties object, no table read. False when
    /// the bytes are malformed.
    /// </summary>
    public static bool TryLocate(ReadOnlySpan<byte> properties, out int tableStart, out int tableLength, out ReadOnlySpan<byte> messageId)
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
}
