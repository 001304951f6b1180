using Prewire.Pipeline;

namespace Prewire.Messaging;

/// <summary>A message being sent, serialized: headers and body bytes.</summary>
public sealed class OutgoingPhysicalContext(IBehaviorContext parent, string messageId, IReadOnlyDictionary<string, string> headers, ReadOnlyMemory<byte> body)
    : BehaviorContext(parent)
{
    /// <summary>The message id.</summary>
    public string MessageId { get; } = messageId;

    /// <summary>The headers to send.</summary>
    public IReadOnlyDictionary<string, string> Headers { get; } = headers;

    /// <summary>The body, written once; nothing downstream copies it.</summary>
    public ReadOnlyMemory<byte> Body { get; } = body;
}
