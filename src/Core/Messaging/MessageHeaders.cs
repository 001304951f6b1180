namespace Prewire.Messaging;

/// <summary>The envelope headers every sample writes and reads.</summary>
public static class MessageHeaders
{
    /// <summary>The message id (also the transport's message id).</summary>
    public const string MessageId = "prewire.message-id";

    /// <summary>The content type of the body.</summary>
    public const string ContentType = "prewire.content-type";

    /// <summary>When the message was sent, ISO 8601 UTC.</summary>
    public const string SentAt = "prewire.sent-at";
}
