using Prewire.Amqp;
using Prewire.Pipeline;

namespace Prewire.Messaging;

/// <summary>
/// One AMQP client as an app uses it, chosen once at the edge: it opens the sessions of a
/// <see cref="BrokerConnection"/> and makes the outgoing terminator, the dead-letter queue and the
/// receiver that run on it. Prewire's own is <see cref="AmqpClient.Instance"/>; RabbitMQ.Client's is
/// <c>RabbitMqClient.Instance</c> in Prewire.RabbitMQ. Another client is one more subclass.
/// </summary>
/// <remarks>
/// Virtual methods rather than delegates: NativeAOT compiles an override only where something calls it,
/// so the Publisher carries no receiver; a delegate to each factory kept them all (12.8 KB and 54,000
/// instructions to the Publisher's ready line, measured).
/// </remarks>
public abstract class BrokerClient(string name)
{
    /// <summary>Its name, as an app's <c>--client</c> takes it (in any case) and its report prints it.</summary>
    public string Name { get; } = name;

    /// <summary>Connects to <paramref name="uri"/> and declares the <see cref="BrokerTopology"/>: this client's <see cref="BrokerSessionFactory"/>.</summary>
    /// <exception cref="AmqpException">The node refused, or could not be reached (one line naming it, never the password).</exception>
    public abstract Task<BrokerSession> OpenSessionAsync(BrokerSessionOptions options, AmqpUri uri, CancellationToken cancellationToken);

    /// <summary>The outgoing terminator, made before any connection; <see cref="BrokerDispatch.AttachAsync"/> gives it one.</summary>
    public abstract BrokerDispatch CreateDispatch();

    /// <summary>A dead-letter queue sending through <paramref name="connection"/>'s session, whichever session that is at the time.</summary>
    public abstract IDeadLetterQueue CreateDeadLetterQueue(BrokerConnection connection);

    /// <summary>A receiver handing <paramref name="connection"/>'s deliveries to <paramref name="pipeline"/>; <paramref name="rejected"/> hears of each message rejected.</summary>
    public abstract BrokerReceiver CreateReceiver(BrokerConnection connection, Pipeline<TransportReceiveContext> pipeline, Action<string, Exception> rejected);

    /// <inheritdoc />
    public override string ToString() => Name;
}
