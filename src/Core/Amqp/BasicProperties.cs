namespace Prewire.Amqp;

/// <summary>
/// The properties of a message (class <c>basic</c>), written in the content header with a flag bit
/// for each one present. Reusable: set what a message needs; writing never allocates.
/// </summary>
/// <remarks>Their wire form is read and written in one place, <c>Framing/Internal/PropertyCodec</c>.</remarks>
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
}
