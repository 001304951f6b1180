using System.Globalization;
using Prewire.Amqp;
using Prewire.Framing.Internal;

namespace Prewire.Messaging.Internal;

/// <summary>
/// The properties of one publish in flight, pooled with the bytes its id and sent-at header are
/// formatted into: the content header is written from them before the confirm is awaited, so they can
/// be set again for the next publish once it came, and an id or a time kept as a value goes out as
/// text with no string.
/// </summary>
internal sealed class PublishProperties
{
    // "O" on a DateTimeOffset: yyyy-MM-ddTHH:mm:ss.fffffffzzz, always 33 characters.
    private const int SentAtLength = 33;

    private readonly byte[] _sentAt = new byte[SentAtLength];
    private readonly byte[] _id = new byte[32];

    public BasicProperties Properties { get; } = new() { Headers = new(StringComparer.Ordinal) };

    /// <summary>The publish's span and metrics: kept here, not in the dispatch's state machine.</summary>
    public PublishTelemetry Telemetry { get; set; }

    /// <summary>The header value for <paramref name="sentAt"/>: this publish's reused bytes, as <see cref="FieldTable"/> writes a long string.</summary>
    public object SentAt(DateTimeOffset sentAt) =>
        sentAt.TryFormat(_sentAt, out var written, "O", CultureInfo.InvariantCulture) && written == SentAtLength
            ? _sentAt
            : sentAt.ToString("O", CultureInfo.InvariantCulture);

    /// <summary><paramref name="id"/>'s 32 hex digits in this publish's reused bytes: the message-id property and header.</summary>
    public byte[] MessageId(Guid id)
    {
        id.TryFormat(_id, out _, "N");
        Properties.MessageIdUtf8 = _id;
        return _id;
    }

    public void Clear()
    {
        Properties.MessageId = null;
        Properties.MessageIdUtf8 = null;
        Properties.ContentType = null;
        Properties.Headers!.Clear();
        Telemetry = default;
    }
}
