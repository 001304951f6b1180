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

    /// <summary>A context for a receiver's next delivery, from the pool when one is there; <see cref="Return"/> gives it back.</summary>
    internal static TransportReceiveContext Rent(string messageId, IReadOnlyDictionary<string, string> headers, ReadOnlySequence<byte> body)
    {
        if (ObjectPool<TransportReceiveContext>.TryRent() is not { } context) return new(messageId, headers, body);
        context.Reuse();
        (context.MessageId, context.Headers, context.Body, context.Outcome, context.Failure) = (messageId, headers, body, default, null);
        return context;
    }

    /// <summary>Gives the context back once the pipeline is done: nothing may read it afterwards.</summary>
    internal void Return()
    {
        (MessageId, Headers, Body, Failure) = ("", ReadOnlyDictionary<string, string>.Empty, default, null);
        ObjectPool<TransportReceiveContext>.Return(this);
    }
}
