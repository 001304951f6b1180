using Prewire.Pipeline;

namespace Prewire.Messaging;

/// <summary>A message being sent, as an object: behaviors here validate it and add headers.</summary>
public sealed class OutgoingLogicalContext(string messageId, object message, CancellationToken cancellationToken = default)
    : BehaviorContext(cancellationToken)
{
    /// <summary>The message id.</summary>
    public string MessageId { get; } = messageId;

    /// <summary>The message.</summary>
    public object Message { get; } = message;

    /// <summary>Headers to send; behaviors add to them.</summary>
    public Dictionary<string, string> Headers { get; } = new(StringComparer.Ordinal);
}
