using Prewire.Amqp;
using Prewire.Messaging;
using Prewire.Pipeline;

namespace Prewire.RabbitMQ;

/// <summary>RabbitMQ.Client as a <see cref="BrokerClient"/>, for comparison with Prewire's own.</summary>
public sealed class RabbitMqClient() : BrokerClient("RabbitMQ")
{
    /// <summary>The instance the apps use (<c>--client rabbitmq</c>).</summary>
    public static RabbitMqClient Instance { get; } = new();

    /// <summary>A connection and one channel with confirms (<see cref="RabbitMqSession"/>).</summary>
    public override Task<BrokerSession> OpenSessionAsync(BrokerSessionOptions options, AmqpUri uri, CancellationToken cancellationToken) => RabbitMqSession.OpenAsync(options, uri, cancellationToken);

    /// <summary>Publishes on the session's channel (<see cref="RabbitMqDispatch"/>).</summary>
    public override BrokerDispatch CreateDispatch() => new RabbitMqDispatch();

    /// <summary>Dead-letters on the session's channel (<see cref="RabbitMqDeadLetterQueue"/>).</summary>
    public override IDeadLetterQueue CreateDeadLetterQueue(BrokerConnection connection) => new RabbitMqDeadLetterQueue(connection);

    /// <summary>Consumes with RabbitMQ.Client's own consumer (<see cref="RabbitMqReceiver"/>).</summary>
    public override BrokerReceiver CreateReceiver(BrokerConnection connection, Pipeline<TransportReceiveContext> pipeline, Action<string, Exception> rejected) => new RabbitMqReceiver(connection, pipeline, rejected);
}
