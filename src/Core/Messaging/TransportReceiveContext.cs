using System.Buffers;
using System.Collections.ObjectModel;
using Prewire.Messaging.Internal;
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
    // Null while an id read as a value has not been asked for as text.
    private string? _messageId;
    private Guid _id;
    private bool _hasId;

    /// <summary>A message as the transport delivered it.</summary>
    public TransportReceiveContext(string messageId, IReadOnlyDictionary<string, string> headers, ReadOnlySequence<byte> body, CancellationToken cancellationToken = default)
        : base(cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(messageId);
        SetMessageId(messageId);
        (Headers, Body) = (headers, body);
    }

    /// <summary>The transport's message id ("" for none; for one delivered as 32 lowercase hex digits, made on first use).</summary>
    public string MessageId => _messageId ??= _id.ToString("N");

    /// <summary>
    /// The message id as a value, when it is 32 lowercase hex digits (a <see cref="Guid"/> written "N",
    /// as <see cref="OutgoingLogicalContext.Rent(Guid, object, CancellationToken)"/> sends it), whether or
    /// not a string was made of it: a duplicate check can keep 16 bytes, and no string, for such an id.
    /// </summary>
    public bool TryGetMessageId(out Guid id)
    {
        id = _id;
        return _hasId;
    }

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
        var physical = _physical ??= new IncomingPhysicalContext(this);
        physical.Reset(Headers, Body);
        return physical;
    }

    // The pair differs in the id's type, so no call binds to the other (as OutgoingLogicalContext.Rent's pair).
#pragma warning disable RS0026, RS0027
    /// <summary>
    /// A context for a transport's next delivery, from the pool when one is there (with the physical and
    /// logical contexts kept with it): a delivery then costs the pipeline no context once the pool is warm.
    /// <see cref="Return"/> gives it back.
    /// </summary>
    public static TransportReceiveContext Rent(string messageId, IReadOnlyDictionary<string, string> headers, ReadOnlySequence<byte> body, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(messageId);
        var context = Rent(headers, body, cancellationToken);
        context.SetMessageId(messageId);
        return context;
    }

    /// <summary>
    /// As <see cref="Rent(string, IReadOnlyDictionary{string, string}, ReadOnlySequence{byte}, CancellationToken)"/>,
    /// for an id the transport read as a value (32 lowercase hex digits): <see cref="MessageId"/> makes
    /// its string only if something asks for it.
    /// </summary>
    public static TransportReceiveContext Rent(Guid messageId, IReadOnlyDictionary<string, string> headers, ReadOnlySequence<byte> body, CancellationToken cancellationToken = default)
    {
        var context = Rent(headers, body, cancellationToken);
        (context._messageId, context._id, context._hasId) = (null, messageId, true);
        return context;
    }
#pragma warning restore RS0026, RS0027

    private static TransportReceiveContext Rent(IReadOnlyDictionary<string, string> headers, ReadOnlySequence<byte> body, CancellationToken cancellationToken)
    {
        if (ObjectPool<TransportReceiveContext>.TryRent() is not { } context) return new("", headers, body, cancellationToken);
        context.Reuse(cancellationToken);
        (context.Headers, context.Body, context.Outcome, context.Failure) = (headers, body, default, null);
        return context;
    }

    /// <summary>Gives the context back once the pipeline is done: nothing may read it, or its children, afterwards.</summary>
    public void Return()
    {
        SetMessageId("");
        (Headers, Body, Failure) = (ReadOnlyDictionary<string, string>.Empty, default, null);
        // Nothing of this delivery kept alive by the children while the context waits in the pool.
        _physical?.Reset(Headers, Body);
        ObjectPool<TransportReceiveContext>.Return(this);
    }

    // A text id that is a Guid's "N" form is kept as that value too, so the duplicate check sees one key
    // for it whichever client read it.
    private void SetMessageId(string messageId)
    {
        _messageId = messageId;
        _hasId = HexMessageId.TryParse(messageId, out _id);
    }
}
