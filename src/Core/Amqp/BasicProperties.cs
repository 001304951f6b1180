using Prewire.Framing.Internal;

namespace Prewire.Amqp;

/// <summary>
/// The properties of a message (class <c>basic</c>), written in the content header with a flag bit
/// for each one present. Reusable: set what a message needs; writing never allocates.
/// </summary>
public sealed class BasicProperties
{
    /// <summary>content-type (flag bit 15).</summary>
    public string? ContentType { get; set; }

    /// <summary>content-encoding (bit 14).</summary>
    public string? ContentEncoding { get; set; }

    /// <summary>
    /// headers (bit 13). A value is null, bool, sbyte, byte, short, ushort, int, uint, long, float,
    /// double, <see cref="AmqpDecimal"/>, string or byte[] (a long string), <see cref="AmqpBytes"/>,
    /// <see cref="AmqpTimestamp"/>, a nested table or a <see cref="List{T}"/> of values.
    /// </summary>
    public Dictionary<string, object?>? Headers { get; set; }

    /// <summary>delivery-mode (bit 12): 1 transient, 2 persistent.</summary>
    public byte? DeliveryMode { get; set; }

    /// <summary>priority (bit 11).</summary>
    public byte? Priority { get; set; }

    /// <summary>correlation-id (bit 10).</summary>
    public string? CorrelationId { get; set; }

    /// <summary>reply-to (bit 9).</summary>
    public string? ReplyTo { get; set; }

    /// <summary>expiration (bit 8), milliseconds as a string.</summary>
    public string? Expiration { get; set; }

    /// <summary>message-id (bit 7).</summary>
    public string? MessageId { get; set; }

    // message-id already encoded (a publisher's id kept as a value, formatted into reused bytes); used
    // when MessageId is null.
    internal byte[]? MessageIdUtf8 { get; set; }

    /// <summary>timestamp (bit 6).</summary>
    public AmqpTimestamp? Timestamp { get; set; }

    /// <summary>type (bit 5).</summary>
    public string? Type { get; set; }

    /// <summary>user-id (bit 4).</summary>
    public string? UserId { get; set; }

    /// <summary>app-id (bit 3).</summary>
    public string? AppId { get; set; }

    /// <summary>cluster-id (bit 2), reserved by RabbitMQ.</summary>
    public string? ClusterId { get; set; }

    internal ushort Flags(bool extraHeader) =>
        (ushort)((ContentType is null ? 0 : 1 << 15) | (ContentEncoding is null ? 0 : 1 << 14) | (Headers is null && !extraHeader ? 0 : 1 << 13)
            | (DeliveryMode is null ? 0 : 1 << 12) | (Priority is null ? 0 : 1 << 11) | (CorrelationId is null ? 0 : 1 << 10)
            | (ReplyTo is null ? 0 : 1 << 9) | (Expiration is null ? 0 : 1 << 8) | (MessageId is null && MessageIdUtf8 is null ? 0 : 1 << 7)
            | (Timestamp is null ? 0 : 1 << 6) | (Type is null ? 0 : 1 << 5) | (UserId is null ? 0 : 1 << 4)
            | (AppId is null ? 0 : 1 << 3) | (ClusterId is null ? 0 : 1 << 2));

    internal int GetSize(string? extraHeader = null)
    {
        var size = 2;
        if (ContentType is not null) size += AmqpWriter.ShortStringSize(ContentType);
        if (ContentEncoding is not null) size += AmqpWriter.ShortStringSize(ContentEncoding);
        if (Headers is not null || extraHeader is not null) size += FieldTable.GetSize(Headers, extraHeader);
        if (DeliveryMode is not null) size += 1;
        if (Priority is not null) size += 1;
        if (CorrelationId is not null) size += AmqpWriter.ShortStringSize(CorrelationId);
        if (ReplyTo is not null) size += AmqpWriter.ShortStringSize(ReplyTo);
        if (Expiration is not null) size += AmqpWriter.ShortStringSize(Expiration);
        if (MessageId is not null) size += AmqpWriter.ShortStringSize(MessageId);
        else if (MessageIdUtf8 is not null) size += 1 + MessageIdUtf8.Length;
        if (Timestamp is not null) size += 8;
        if (Type is not null) size += AmqpWriter.ShortStringSize(Type);
        if (UserId is not null) size += AmqpWriter.ShortStringSize(UserId);
        if (AppId is not null) size += AmqpWriter.ShortStringSize(AppId);
        if (ClusterId is not null) size += AmqpWriter.ShortStringSize(ClusterId);
        return size;
    }

    internal void Write(ref AmqpWriter writer, string? extraHeader = null, long extraValue = 0)
    {
        writer.WriteShort(Flags(extraHeader is not null));
        if (ContentType is not null) writer.WriteShortString(ContentType);
        if (ContentEncoding is not null) writer.WriteShortString(ContentEncoding);
        if (Headers is not null || extraHeader is not null) FieldTable.Write(ref writer, Headers, extraHeader, extraValue);
        if (DeliveryMode is { } deliveryMode) writer.WriteOctet(deliveryMode);
        if (Priority is { } priority) writer.WriteOctet(priority);
        if (CorrelationId is not null) writer.WriteShortString(CorrelationId);
        if (ReplyTo is not null) writer.WriteShortString(ReplyTo);
        if (Expiration is not null) writer.WriteShortString(Expiration);
        if (MessageId is not null) writer.WriteShortString(MessageId);
        else if (MessageIdUtf8 is not null) writer.WriteShortString(MessageIdUtf8);
        if (Timestamp is { } timestamp) writer.WriteLongLong(timestamp.UnixSeconds);
        if (Type is not null) writer.WriteShortString(Type);
        if (UserId is not null) writer.WriteShortString(UserId);
        if (AppId is not null) writer.WriteShortString(AppId);
        if (ClusterId is not null) writer.WriteShortString(ClusterId);
    }

    internal static BasicProperties Read(ref AmqpReader reader)
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
}
