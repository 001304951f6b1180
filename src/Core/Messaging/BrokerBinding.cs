namespace Prewire.Messaging;

/// <summary>A binding of a <see cref="BrokerTopology"/>: <paramref name="Queue"/> to <paramref name="Exchange"/> by <paramref name="RoutingKey"/>.</summary>
public sealed record BrokerBinding(string Queue, string Exchange, string RoutingKey);
