using Prewire.Amqp;

namespace Prewire.Messaging.Internal;

/// <summary>Prewire's client as a <see cref="IBrokerTopologyTarget"/>: declarations on one connection.</summary>
internal sealed class AmqpTopologyTarget(AmqpConnection connection) : IBrokerTopologyTarget
{
    public Task DeclareExchangeAsync(string name, string type, CancellationToken cancellationToken) =>
        connection.DeclareExchangeAsync(name, type, cancellationToken: cancellationToken);

    public Task DeclareQueueAsync(string name, Dictionary<string, object?> arguments, CancellationToken cancellationToken) =>
        connection.DeclareQueueAsync(name, arguments: arguments, cancellationToken: cancellationToken);

    public Task BindQueueAsync(string queue, string exchange, string routingKey, CancellationToken cancellationToken) =>
        connection.BindQueueAsync(queue, exchange, routingKey, cancellationToken: cancellationToken);
}
