using System.Buffers;
using Prewire.Pipeline;

namespace Prewire.Messaging;

/// <summary>A message being sent, serialized: headers and body bytes.</summary>
public sealed class OutgoingPhysicalContext(IBehaviorContext parent, string messageId, IReadOnlyDictionary<string, string> headers, ReadOnlySequence<byte> body)
    : BehaviorContext(parent)
{
    /// <summary>The message id.</summary>
    public string MessageId { get; } = messageId;

    /// <summary>The headers to send.</summary>
    public IReadOnlyDictionary<string, string> Headers { get; } = headers;

    /// <summary>The body, written once (or received, as an HTTP request's pipe holds it); nothing downstream copies it.</summary>
    public ReadOnlySequence<byte> Body { get; } = body;
}
