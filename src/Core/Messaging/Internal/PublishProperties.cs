using System.Globalization;
using Prewire.Framing;

namespace Prewire.Messaging.Internal;

/// <summary>
/// The properties of one publish in flight, pooled with the bytes its sent-at header is formatted
/// into: the content header is written from them before the confirm is awaited, so they can be set
/// again for the next publish once it came, and a message's time goes out as text with no string.
/// </summary>
internal sealed class PublishProperties
{
    // "O" on a DateTimeOffset: yyyy-MM-ddTHH:mm:ss.fffffffzzz, always 33 characters.
    private const int SentAtLength = 33;

    private readonly byte[] _sentAt = new byte[SentAtLength];

    public BasicProperties Properties { get; } = new() { Headers = new(StringComparer.Ordinal) };

    /// <summary>The header value for <paramref name="sentAt"/>: this publish's reused bytes, as <see cref="FieldTable"/> writes a long string.</summary>
    public object SentAt(DateTimeOffset sentAt) =>
        sentAt.TryFormat(_sentAt, out var written, "O", CultureInfo.InvariantCulture) && written == SentAtLength
            ? _sentAt
            : sentAt.ToString("O", CultureInfo.InvariantCulture);

    public void Clear()
    {
        Properties.MessageId = null;
        Properties.ContentType = null;
        Properties.Headers!.Clear();
    }
}
