using System.Globalization;
using Prewire.Messaging;
using Prewire.Pipeline;

namespace Prewire.Samples.Messaging;

/// <summary>Adds the envelope headers (id, content type, time sent) to an outgoing message.</summary>
public sealed class StampHeaders(TimeProvider clock) : Behavior<OutgoingLogicalContext>
{
    /// <inheritdoc />
    public override Task Invoke(OutgoingLogicalContext context, Func<Task> next)
    {
        ArgumentNullException.ThrowIfNull(context);
        ArgumentNullException.ThrowIfNull(next);
        context.Headers[MessageHeaders.MessageId] = context.MessageId;
        context.Headers[MessageHeaders.ContentType] = TextMessages.ContentType;
        context.Headers[MessageHeaders.SentAt] = clock.GetUtcNow().ToString("O", CultureInfo.InvariantCulture);
        return next();
    }
}
