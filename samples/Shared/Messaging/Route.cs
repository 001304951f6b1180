using Prewire.Messaging;
using Prewire.Pipeline;

namespace Prewire.Samples.Messaging;

/// <summary>Outgoing: addresses the serialized message to an exchange with a routing key ("" and the queue's name for the default exchange).</summary>
public sealed class Route(string exchange, string routingKey) : StageConnector<OutgoingPhysicalContext, DispatchContext>
{
    /// <summary>Where messages go, for logs.</summary>
    public string Destination => exchange.Length == 0
        ? $"queue '{routingKey}' via the default exchange"
        : $"exchange '{exchange}' with routing key '{routingKey}'";

    /// <summary>How --describe shows the step.</summary>
    public string Description => $"addresses {Destination}";

    /// <inheritdoc />
    public override ValueTask Invoke(OutgoingPhysicalContext context, Func<DispatchContext, ValueTask> next)
    {
        ArgumentNullException.ThrowIfNull(context);
        ArgumentNullException.ThrowIfNull(next);
        return next(context.ToDispatch(exchange, routingKey));
    }
}
