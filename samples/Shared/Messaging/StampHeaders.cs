using Prewire.Messaging;
using Prewire.Pipeline;

namespace Prewire.Samples.Messaging;

/// <summary>
/// Stamps an outgoing message with the time it is sent. The dispatch writes the envelope (the id and
/// this time) as headers, from values: no string per message. The content type is the serializer's to say.
/// </summary>
public sealed class StampHeaders(TimeProvider clock) : Behavior<OutgoingLogicalContext>
{
    /// <inheritdoc />
    public override ValueTask Invoke(OutgoingLogicalContext context, Func<ValueTask> next)
    {
        ArgumentNullException.ThrowIfNull(context);
        ArgumentNullException.ThrowIfNull(next);
        context.SentAt = clock.GetUtcNow();
        return next();
    }
}
