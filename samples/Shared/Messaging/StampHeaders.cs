using Prewire.Messaging;
using Prewire.Pipeline;

namespace Prewire.Samples.Messaging;

/// <summary>
/// Adds the envelope to an outgoing message: its id as a header, and the time sent, which the dispatch
/// writes as a header (kept as a value until then: no string per message). The content type is the
/// serializer's to say.
/// </summary>
public sealed class StampHeaders(TimeProvider clock) : Behavior<OutgoingLogicalContext>
{
    /// <inheritdoc />
    public override ValueTask Invoke(OutgoingLogicalContext context, Func<ValueTask> next)
    {
        ArgumentNullException.ThrowIfNull(context);
        ArgumentNullException.ThrowIfNull(next);
        context.Headers[MessageHeaders.MessageId] = context.MessageId;
        context.SentAt = clock.GetUtcNow();
        return next();
    }
}
