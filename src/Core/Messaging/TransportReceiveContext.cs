using System.Buffers;
using System.Collections.ObjectModel;
using Prewire.Pipeline;
using Prewire.Tasks;

namespace Prewire.Messaging;

/// <summary>
/// A message as the transport delivered it. The context and its body are only valid while the pipeline
/// runs: a receiver reuses the context for a later delivery once the pipeline is done with it.
/// </summary>
public sealed class TransportReceiveContext : BehaviorContext
{
    private IncomingPhysicalContext? _physical;

    /// <summary>A message as the transport delivered it.</summary>
    public TransportReceiveContext(string messageId, IReadOnlyDictionary<string, string> headers, ReadOnlySequence<byte> body, CancellationToken cancellationToken = default)
        : base(cancellationToken) => (MessageId, Headers, Body) = (messageId, headers, body);

    /// <summary>The transport's message id.</summary>
    public string MessageId { get; private set; }

    /// <summary>The transport headers.</summary>
    public IReadOnlyDictionary<string, string> Headers { get; private set; }

    /// <summary>The raw body, borrowed from the transport: copy what must outlive the pipeline.</summary>
    public ReadOnlySequence<byte> Body { get; private set; }

    /// <summary>What the pipeline made of the delivery, for the transport's counts; set by the receive stage.</summary>
    /// <remarks>Defaults to <see cref="ReceiveOutcome.Handled"/>.</remarks>
    public ReceiveOutcome Outcome { get; set; }

    /// <summary>Why the message was dead-lettered (<see cref="ReceiveOutcome.DeadLettered"/>), set by the receive stage: the process span records it.</summary>
    public Exception? Failure { get; set; }

    /// <summary>
    /// This delivery as the physical message, its body not copied: its one physical context (made on
    /// first use, then kept with this context, so a receiver's pooled context brings it and its logical
    /// child back for the next delivery), set to this delivery. A replayed step gets the same one, set again.
    /// </summary>
    public IncomingPhysicalContext ToPhysical()
    {
        var physical = _physical ??= new IncomingPhysicalContext(this, MessageId, Headers, Body);
        physical.Reset(MessageId, Headers, Body);
        return physical;
    }

    /// <summary>
    /// A context for a transport's next delivery, from the pool when one is there (with the physical and
    /// logical contexts kept with it): a delivery then costs the pipeline no context once the pool is warm.
    /// <see cref="Return"/> gives it back.
    /// </summary>
    public static TransportReceiveContext Rent(string messageId, IReadOnlyDictionary<string, string> headers, ReadOnlySequence<byte> body, CancellationToken cancellationToken = default)
    {
        if (ObjectPool<TransportReceiveContext>.TryRent() is not { } context) return new(messageId, headers, body, cancellationToken);
        context.Reuse(cancellationToken);
        (context.MessageId, context.Headers, context.Body, context.Outcome, context.Failure) = (messageId, headers, body, default, null);
        return context;
    }

    /// <summary>Gives the context back once the pipeline is done: nothing may read it, or its children, afterwards.</summary>
    public void Return()
    {
        (MessageId, Headers, Body, Failure) = ("", ReadOnlyDictionary<string, string>.Empty, default, null);
        // Nothing of this delivery kept alive by the children while the context waits in the pool.
        _physical?.Reset(MessageId, Headers, Body);
        ObjectPool<TransportReceiveContext>.Return(this);
    }
}
