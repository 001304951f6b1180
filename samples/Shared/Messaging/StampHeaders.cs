using System.Globalization;
using Prewire.Messaging;
using Prewire.Pipeline;

namespace Prewire.Samples.Messaging;

/// <summary>Adds the envelope headers (id, time sent) to an outgoing message; the content type is the serializer's to say.</summary>
public sealed class StampHeaders(TimeProvider clock) : Behavior<OutgoingLogicalContext>
{
    /// <inheritdoc />
    public override ValueTask Invoke(OutgoingLogicalContext context, Func<ValueTask> next)
    {
        ArgumentNullException.ThrowIfNull(context);
        ArgumentNullException.ThrowIfNull(next);
        context.Headers[MessageHeaders.MessageId] = context.MessageId;
        context.Headers[MessageHeaders.SentAt] = clock.GetUtcNow().ToString("O", CultureInfo.InvariantCulture);
        return next();
    }
}
