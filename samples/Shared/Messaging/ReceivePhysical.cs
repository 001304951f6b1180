using Prewire.Messaging;
using Prewire.Pipeline;

namespace Prewire.Samples.Messaging;

/// <summary>Incoming: from what the transport delivered to the physical message (no copy of the body, the context kept with the delivery's).</summary>
public sealed class ReceivePhysical : StageConnector<TransportReceiveContext, IncomingPhysicalContext>
{
    /// <inheritdoc />
    public override ValueTask Invoke(TransportReceiveContext context, Func<IncomingPhysicalContext, ValueTask> next)
    {
        ArgumentNullException.ThrowIfNull(context);
        ArgumentNullException.ThrowIfNull(next);
        return next(context.ToPhysical());
    }
}
