namespace Prewire.Messaging;

/// <summary>An exchange of a <see cref="BrokerTopology"/>: its name and AMQP type (<c>fanout</c>, <c>direct</c>).</summary>
public sealed record BrokerExchange(string Name, string Type);
