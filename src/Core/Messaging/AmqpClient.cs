using Prewire.Amqp;
using Prewire.Pipeline;

namespace Prewire.Messaging;

/// <summary>Prewire's own client as a <see cref="BrokerClient"/>.</summary>
public sealed class AmqpClient() : BrokerClient("Prewire")
{
    /// <summary>The instance the apps use.</summary>
    public static AmqpClient Instance { get; } = new();

    /// <inheritdoc />
    public override Task<BrokerSession> OpenSessionAsync(BrokerSessionOptions options, AmqpUri uri, CancellationToken cancellationToken) =>
        AmqpSession.OpenAsync(options, uri, cancellationToken);

    /// <inheritdoc />
    public override BrokerDispatch CreateDispatch() => new AmqpPublisherDispatch();

    /// <inheritdoc />
    public override IDeadLetterQueue CreateDeadLetterQueue(BrokerConnection connection) => new AmqpDeadLetterQueue(connection);

    /// <inheritdoc />
    public override BrokerReceiver CreateReceiver(BrokerConnection connection, Pipeline<TransportReceiveContext> pipeline, Action<string, Exception> rejected) =>
        new AmqpReceiver(connection, pipeline, rejected);
}
