namespace Prewire.Messaging;

/// <summary>What a client does with a <see cref="BrokerTopology"/>: each declaration durable, none auto-deleted.</summary>
public interface IBrokerTopologyTarget
{
    /// <summary>Declares exchange <paramref name="name"/> of AMQP type <paramref name="type"/> (<c>fanout</c>, <c>direct</c>).</summary>
    Task DeclareExchangeAsync(string name, string type, CancellationToken cancellationToken);

    /// <summary>Declares queue <paramref name="name"/> with <paramref name="arguments"/> (<c>x-queue-type</c>, <c>x-dead-letter-exchange</c>).</summary>
    Task DeclareQueueAsync(string name, Dictionary<string, object?> arguments, CancellationToken cancellationToken);

    /// <summary>Binds <paramref name="queue"/> to <paramref name="exchange"/> by <paramref name="routingKey"/>.</summary>
    Task BindQueueAsync(string queue, string exchange, string routingKey, CancellationToken cancellationToken);
}
