using System.Buffers.Text;
using System.Globalization;
using Prewire.Messaging.Internal;

namespace Prewire.Messaging;

/// <summary>The envelope headers every sample writes and reads.</summary>
public static class MessageHeaders
{
    /// <summary>The message id (also the transport's message id).</summary>
    public const string MessageId = "prewire.message-id";

    /// <summary>The content type of the body.</summary>
    public const string ContentType = "prewire.content-type";

    /// <summary>When the message was sent, ISO 8601 UTC; written by the dispatch from <see cref="OutgoingLogicalContext.SentAt"/>.</summary>
    public const string SentAt = "prewire.sent-at";

    /// <summary>What the message is, as its sender named it (the HTTP endpoint's <c>{type}</c>).</summary>
    public const string MessageType = "prewire.message-type";

    /// <summary>On a dead letter: <c>malformed</c> (never handled) or <c>failed</c> (its handler threw on every attempt).</summary>
    public const string DeadLetterReason = "prewire.dead-letter.reason";

    /// <summary>On a dead letter: the exception's full type name.</summary>
    public const string ExceptionType = "prewire.dead-letter.exception-type";

    /// <summary>On a dead letter: the exception's message.</summary>
    public const string ExceptionMessage = "prewire.dead-letter.exception-message";

    /// <summary>On a dead letter: how many times its handler ran.</summary>
    public const string Attempts = "prewire.dead-letter.attempts";

    /// <summary>On a dead letter: the queue it was taken from.</summary>
    public const string OriginalQueue = "prewire.dead-letter.queue";

    /// <summary>
    /// Reads the <see cref="SentAt"/> header as a time. On a delivery from Prewire's own consumer the
    /// round-trip text ("O") our dispatch writes is parsed from the bytes received, with no string made;
    /// any other text a <see cref="DateTimeOffset"/> parses is read from its string.
    /// </summary>
    public static bool TryGetSentAt(IReadOnlyDictionary<string, string> headers, out DateTimeOffset sentAt)
    {
        ArgumentNullException.ThrowIfNull(headers);
        if (headers is ReceivedHeaders received && received.TryGetUtf8(SentAt, out var utf8)
            && Utf8Parser.TryParse(utf8, out sentAt, out var used, 'O') && used == utf8.Length) return true;
        sentAt = default;
        return headers.TryGetValue(SentAt, out var text) && DateTimeOffset.TryParse(text, CultureInfo.InvariantCulture, DateTimeStyles.RoundtripKind, out sentAt);
    }
}
