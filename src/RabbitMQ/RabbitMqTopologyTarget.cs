using Prewire.Messaging;
using RabbitMQ.Client;

namespace Prewire.RabbitMQ;

/// <summary>RabbitMQ.Client as a <see cref="IBrokerTopologyTarget"/>: declarations on one channel.</summary>
internal sealed class RabbitMqTopologyTarget(IChannel channel) : IBrokerTopologyTarget
{
    public Task DeclareExchangeAsync(string name, string type, CancellationToken cancellationToken) =>
        channel.ExchangeDeclareAsync(name, type, durable: true, autoDelete: false, cancellationToken: cancellationToken);

    public Task DeclareQueueAsync(string name, Dictionary<string, object?> arguments, CancellationToken cancellationToken) =>
        channel.QueueDeclareAsync(name, durable: true, exclusive: false, autoDelete: false, arguments, cancellationToken: cancellationToken);

    public Task BindQueueAsync(string queue, string exchange, string routingKey, CancellationToken cancellationToken) =>
        channel.QueueBindAsync(queue, exchange, routingKey, cancellationToken: cancellationToken);
}
