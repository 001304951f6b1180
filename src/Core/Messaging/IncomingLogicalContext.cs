using Prewire.Pipeline;

namespace Prewire.Messaging;

/// <summary>An incoming message as an object, ready for its handler.</summary>
public sealed class IncomingLogicalContext(IBehaviorContext parent, string messageId, IReadOnlyDictionary<string, string> headers, object message)
    : BehaviorContext(parent)
{
    /// <summary>The message id.</summary>
    public string MessageId { get; } = messageId;

    /// <summary>The message headers.</summary>
    public IReadOnlyDictionary<string, string> Headers { get; } = headers;

    /// <summary>The deserialized message.</summary>
    public object Message { get; } = message;
}
