using System.Buffers;
using Prewire.Pipeline;

namespace Prewire.Messaging;

/// <summary>A message being sent, serialized: headers and body bytes.</summary>
public sealed class OutgoingPhysicalContext(IBehaviorContext parent, string messageId, IReadOnlyDictionary<string, string> headers, ReadOnlySequence<byte> body)
    : BehaviorContext(parent)
{
    private readonly string _messageId = messageId;
    private OutgoingLogicalContext? _envelope;
    private DispatchContext? _dispatch;

    /// <summary>The message id.</summary>
    public string MessageId => _envelope?.MessageId ?? _messageId;

    /// <summary>The headers to send.</summary>
    public IReadOnlyDictionary<string, string> Headers { get; private set; } = headers;

    /// <summary>The body, written once (or received, as an HTTP request's pipe holds it); nothing downstream copies it.</summary>
    public ReadOnlySequence<byte> Body { get; private set; } = body;

    /// <summary>When the message was sent (<see cref="OutgoingLogicalContext.SentAt"/>).</summary>
    public DateTimeOffset? SentAt { get; set; }

    // The logical message this one was made from by ToPhysical: its id is read there, as a value if it is one.
    internal OutgoingLogicalContext? Envelope => _envelope;

    /// <summary>
    /// This message addressed to <paramref name="exchange"/> with <paramref name="routingKey"/>: its one
    /// dispatch context (made on first use, then kept with this context), set to this message.
    /// </summary>
    public DispatchContext ToDispatch(string exchange, string routingKey)
    {
        var dispatch = _dispatch ??= new DispatchContext(this, exchange, routingKey, _messageId, Headers, Body);
        dispatch.Reset(exchange, routingKey, this, Headers, Body);
        dispatch.SentAt = SentAt;
        return dispatch;
    }

    // For its next message (an OutgoingLogicalContext kept for reuse).
    internal void Reset(OutgoingLogicalContext envelope, IReadOnlyDictionary<string, string> headers, ReadOnlySequence<byte> body, DateTimeOffset? sentAt)
    {
        Reuse();
        (_envelope, Headers, Body, SentAt) = (envelope, headers, body, sentAt);
        _dispatch?.Reset("", "", this, headers, default);
    }
}
