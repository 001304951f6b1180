using System.Buffers;
using System.Collections.ObjectModel;
using Prewire.Pipeline;

namespace Prewire.Messaging;

/// <summary>
/// An incoming message, bytes and headers, before it is deserialized. One made by
/// <see cref="TransportReceiveContext.ToPhysical"/> is kept with its delivery's context and set again
/// for the next delivery: valid while the pipeline runs, as the body it borrows.
/// </summary>
public sealed class IncomingPhysicalContext : BehaviorContext
{
    private IncomingLogicalContext? _logical;
    // The delivery's, when made by it: its id stays a value until something asks for the text.
    private readonly TransportReceiveContext? _transport;
    private readonly string _messageId;

    /// <summary>An incoming message; <see cref="TransportReceiveContext.ToPhysical"/> reuses one instead.</summary>
    public IncomingPhysicalContext(IBehaviorContext parent, string messageId, IReadOnlyDictionary<string, string> headers, ReadOnlySequence<byte> body)
        : base(parent) => (_messageId, Headers, Body) = (messageId, headers, body);

    // The one kept with its delivery's context, set by Reset for each delivery.
    internal IncomingPhysicalContext(TransportReceiveContext transport)
        : this(transport, "", ReadOnlyDictionary<string, string>.Empty, default) => _transport = transport;

    /// <summary>The message id.</summary>
    public string MessageId => _transport?.MessageId ?? _messageId;

    /// <summary>The message headers.</summary>
    public IReadOnlyDictionary<string, string> Headers { get; private set; }

    /// <summary>The body, borrowed from the transport.</summary>
    public ReadOnlySequence<byte> Body { get; private set; }

    /// <summary>
    /// This message deserialized as <paramref name="message"/>: its one logical context (made on first
    /// use, then kept with this context), set to this message's id and headers. A replayed step gets the same one, set again.
    /// </summary>
    public IncomingLogicalContext ToLogical(object message)
    {
        ArgumentNullException.ThrowIfNull(message);
        var logical = _logical ??= new IncomingLogicalContext(this, message);
        logical.Reset(Headers, message);
        return logical;
    }

    // For its delivery's next message, or emptied (nothing kept alive) when the delivery's context goes back to its pool.
    internal void Reset(IReadOnlyDictionary<string, string> headers, ReadOnlySequence<byte> body)
    {
        Reuse();
        (Headers, Body) = (headers, body);
        _logical?.Reset(ReadOnlyDictionary<string, string>.Empty, null);
    }
}
