using System.Buffers;
using Prewire.Pipeline;

namespace Prewire.Messaging;

/// <summary>A serialized message with its destination, ready for the transport.</summary>
public sealed class DispatchContext(IBehaviorContext parent, string exchange, string routingKey, string messageId, IReadOnlyDictionary<string, string> headers, ReadOnlySequence<byte> body)
    : BehaviorContext(parent)
{
    private readonly string _messageId = messageId;
    private OutgoingPhysicalContext? _physical;

    /// <summary>The exchange to publish to ("" for the default exchange).</summary>
    public string Exchange { get; private set; } = exchange;

    /// <summary>The routing key.</summary>
    public string RoutingKey { get; private set; } = routingKey;

    /// <summary>The message id.</summary>
    public string MessageId => _physical?.MessageId ?? _messageId;

    /// <summary>The headers to send.</summary>
    public IReadOnlyDictionary<string, string> Headers { get; private set; } = headers;

    /// <summary>The body.</summary>
    public ReadOnlySequence<byte> Body { get; private set; } = body;

    /// <summary>When the message was sent (<see cref="OutgoingLogicalContext.SentAt"/>): the dispatch writes it as the <see cref="MessageHeaders.SentAt"/> header.</summary>
    public DateTimeOffset? SentAt { get; set; }

    /// <summary>
    /// The message id as a value, when the message was rented with one (<see cref="OutgoingLogicalContext.Rent(Guid, object, CancellationToken)"/>)
    /// and no string was made of it: a dispatch can format it into the frame instead of reading <see cref="MessageId"/>.
    /// </summary>
    public bool TryGetMessageId(out Guid id)
    {
        if (_physical?.Envelope is { } envelope) return envelope.TryGetId(out id);
        id = default;
        return false;
    }

    // For its next message (an OutgoingPhysicalContext kept for reuse).
    internal void Reset(string exchange, string routingKey, OutgoingPhysicalContext physical, IReadOnlyDictionary<string, string> headers, ReadOnlySequence<byte> body)
    {
        Reuse();
        (Exchange, RoutingKey, _physical, Headers, Body, SentAt) = (exchange, routingKey, physical, headers, body, null);
    }
}
