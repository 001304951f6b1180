namespace Prewire.Messaging;

/// <summary>A binding of a <see cref="BrokerTopology"/>: a queue to an exchange by a routing key.</summary>
public sealed class BrokerBinding(string queue, string exchange, string routingKey)
{
    /// <summary>The queue bound.</summary>
    public string Queue { get; } = queue;

    /// <summary>The exchange it is bound to.</summary>
    public string Exchange { get; } = exchange;

    /// <summary>The routing key it is bound by.</summary>
    public string RoutingKey { get; } = routingKey;
}
