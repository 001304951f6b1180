using System.Buffers;
using Prewire.Pipeline;

namespace Prewire.Messaging;

/// <summary>A serialized message with its destination, ready for the transport.</summary>
public sealed class DispatchContext(IBehaviorContext parent, string exchange, string routingKey, string messageId, IReadOnlyDictionary<string, string> headers, ReadOnlySequence<byte> body)
    : BehaviorContext(parent)
{
    /// <summary>The exchange to publish to ("" for the default exchange).</summary>
    public string Exchange { get; } = exchange;

    /// <summary>The routing key.</summary>
    public string RoutingKey { get; } = routingKey;

    /// <summary>The message id.</summary>
    public string MessageId { get; } = messageId;

    /// <summary>The headers to send.</summary>
    public IReadOnlyDictionary<string, string> Headers { get; } = headers;

    /// <summary>The body.</summary>
    public ReadOnlySequence<byte> Body { get; } = body;
}
