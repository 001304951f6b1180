using System.Buffers;
using Prewire.Pipeline;

namespace Prewire.Messaging;

/// <summary>An incoming message, bytes and headers, before it is deserialized.</summary>
public sealed class IncomingPhysicalContext(IBehaviorContext parent, string messageId, IReadOnlyDictionary<string, string> headers, ReadOnlySequence<byte> body)
    : BehaviorContext(parent)
{
    /// <summary>The message id.</summary>
    public string MessageId { get; } = messageId;

    /// <summary>The message headers.</summary>
    public IReadOnlyDictionary<string, string> Headers { get; } = headers;

    /// <summary>The body, borrowed from the transport.</summary>
    public ReadOnlySequence<byte> Body { get; } = body;
}
