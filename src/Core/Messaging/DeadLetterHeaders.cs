using System.Globalization;

namespace Prewire.Messaging;

/// <summary>The headers a dead letter carries, whichever client sends it: the delivery's own, and why it could not be handled.</summary>
public static class DeadLetterHeaders
{
    /// <summary>
    /// <paramref name="message"/>'s headers plus <see cref="MessageHeaders.DeadLetterReason"/>, the
    /// exception's type and message, the attempts and the queue it came from.
    /// </summary>
    public static Dictionary<string, object?> For(TransportReceiveContext message, Exception failure, int attempts, string queue)
    {
        ArgumentNullException.ThrowIfNull(message);
        ArgumentNullException.ThrowIfNull(failure);
        var headers = new Dictionary<string, object?>(message.Headers.Count + 5, StringComparer.Ordinal);
        foreach (var (key, value) in message.Headers) headers[key] = value;
        headers[MessageHeaders.DeadLetterReason] = failure is MalformedMessageException ? "malformed" : "failed";
        headers[MessageHeaders.ExceptionType] = failure.GetType().FullName;
        headers[MessageHeaders.ExceptionMessage] = failure.Message;
        headers[MessageHeaders.Attempts] = attempts.ToString(CultureInfo.InvariantCulture);
        headers[MessageHeaders.OriginalQueue] = queue;
        return headers;
    }

    /// <summary>
    /// What a dead letter of <paramref name="message"/> carries besides its body, whichever client sends it
    /// (always persistent): the delivery's message id (none if it had none) and content type, and
    /// <see cref="For"/>'s headers.
    /// </summary>
    public static (string? MessageId, string? ContentType, Dictionary<string, object?> Headers) Describe(TransportReceiveContext message, Exception failure, int attempts, string queue)
    {
        ArgumentNullException.ThrowIfNull(message);
        return (message.MessageId.Length == 0 ? null : message.MessageId, message.Headers.GetValueOrDefault(MessageHeaders.ContentType), For(message, failure, attempts, queue));
    }
}
