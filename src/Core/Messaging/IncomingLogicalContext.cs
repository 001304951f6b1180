using Prewire.Pipeline;

namespace Prewire.Messaging;

/// <summary>
/// An incoming message as an object, ready for its handler. One made by
/// <see cref="IncomingPhysicalContext.ToLogical"/> is kept with its delivery's context and set again
/// for the next delivery: valid while the pipeline runs.
/// </summary>
public sealed class IncomingLogicalContext : BehaviorContext
{
    // The physical message's, when made by it: the id read from there, as text only when asked.
    private readonly IncomingPhysicalContext? _physical;
    private readonly string _messageId;

    /// <summary>An incoming message as an object; <see cref="IncomingPhysicalContext.ToLogical"/> reuses one instead.</summary>
    public IncomingLogicalContext(IBehaviorContext parent, string messageId, IReadOnlyDictionary<string, string> headers, object message)
        : base(parent) => (_messageId, Headers, Message) = (messageId, headers, message);

    // The one kept with its physical context, set by Reset for each message.
    internal IncomingLogicalContext(IncomingPhysicalContext physical, object message)
        : this(physical, "", physical.Headers, message) => _physical = physical;

    /// <summary>The message id.</summary>
    public string MessageId => _physical?.MessageId ?? _messageId;

    /// <summary>The message headers.</summary>
    public IReadOnlyDictionary<string, string> Headers { get; private set; }

    /// <summary>The deserialized message.</summary>
    public object Message { get; private set; }

    // For the next message (null only while its delivery's context waits in the pool).
    internal void Reset(IReadOnlyDictionary<string, string> headers, object? message)
    {
        Reuse();
        (Headers, Message) = (headers, message!);
    }
}
