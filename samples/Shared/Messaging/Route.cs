using Prewire.Messaging;
using Prewire.Pipeline;

namespace Prewire.Samples.Messaging;

/// <summary>Outgoing: addresses the serialized message to a queue through the default exchange.</summary>
public sealed class RouteToQueue(string queue) : StageConnector<OutgoingPhysicalContext, DispatchContext>
{
    /// <inheritdoc />
    public override Task Invoke(OutgoingPhysicalContext context, Func<DispatchContext, Task> next)
    {
        ArgumentNullException.ThrowIfNull(context);
        ArgumentNullException.ThrowIfNull(next);
        return next(new DispatchContext(context, exchange: "", routingKey: queue, context.MessageId, context.Headers, context.Body));
    }
}
