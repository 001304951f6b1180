using Prewire.Pipeline;

namespace Prewire.Messaging;

/// <summary>
/// One AMQP client as an app uses it, chosen once at the edge: it opens the sessions of a
/// <see cref="BrokerConnection"/> and makes the outgoing terminator, the dead-letter queue and the
/// receiver that run on it. Prewire's own is <see cref="Prewire"/>; RabbitMQ.Client's is
/// <c>RabbitMqSession.Client</c> in Prewire.RabbitMQ. Another client is one more of these.
/// </summary>
public sealed class BrokerClient(
    string name, BrokerSessionFactory openSession, Func<BrokerDispatch> createDispatch, Func<BrokerConnection, IDeadLetterQueue> createDeadLetterQueue, BrokerReceiverFactory createReceiver)
{
    /// <summary>Prewire's own client: <see cref="AmqpSession"/>, <see cref="AmqpPublisherDispatch"/>, <see cref="AmqpDeadLetterQueue"/>, <see cref="AmqpReceiver"/>.</summary>
    public static BrokerClient Prewire { get; } = new("Prewire", AmqpSession.OpenAsync, () => new AmqpPublisherDispatch(),
        connection => new AmqpDeadLetterQueue(connection), (connection, pipeline, rejected) => new AmqpReceiver(connection, pipeline, rejected));

    /// <summary>Its name, as an app's <c>--client</c> takes it (in any case) and its report prints it.</summary>
    public string Name { get; } = name;

    /// <summary>Connects to one node and declares the <see cref="BrokerTopology"/>.</summary>
    public BrokerSessionFactory OpenSession { get; } = openSession;

    /// <summary>The outgoing terminator, made before any connection; <see cref="BrokerDispatch.AttachAsync"/> gives it one.</summary>
    public BrokerDispatch CreateDispatch() => createDispatch();

    /// <summary>A dead-letter queue sending through <paramref name="connection"/>'s session, whichever session that is at the time.</summary>
    public IDeadLetterQueue CreateDeadLetterQueue(BrokerConnection connection) => createDeadLetterQueue(connection);

    /// <summary>A receiver handing <paramref name="connection"/>'s deliveries to <paramref name="pipeline"/>; <paramref name="rejected"/> hears of each message rejected.</summary>
    public BrokerReceiver CreateReceiver(BrokerConnection connection, Pipeline<TransportReceiveContext> pipeline, Action<string, Exception> rejected) =>
        createReceiver(connection, pipeline, rejected);

    /// <inheritdoc />
    public override string ToString() => Name;
}
