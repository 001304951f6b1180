using Prewire.Pipeline;

namespace Prewire.Messaging;

/// <summary>
/// An incoming message as an object, ready for its handler. One made by
/// <see cref="IncomingPhysicalContext.ToLogical"/> is kept with its delivery's context and set again
/// for the next delivery: valid while the pipeline runs.
/// </summary>
public sealed class IncomingLogicalContext : BehaviorContext
{
    /// <summary>An incoming message as an object; <see cref="IncomingPhysicalContext.ToLogical"/> reuses one instead.</summary>
    public IncomingLogicalContext(IBehaviorContext parent, string messageId, IReadOnlyDictionary<string, string> headers, object message)
        : base(parent) => (MessageId, Headers, Message) = (messageId, headers, message);

    /// <summary>The message id.</summary>
    public string MessageId { get; private set; }

    /// <summary>The message headers.</summary>
    public IReadOnlyDictionary<string, string> Headers { get; private set; }

    /// <summary>The deserialized message.</summary>
    public object Message { get; private set; }

    // For the next message (null only while its delivery's context waits in the pool).
    internal void Reset(string messageId, IReadOnlyDictionary<string, string> headers, object? message)
    {
        Reuse();
        (MessageId, Headers, Message) = (messageId, headers, message!);
    }
}
