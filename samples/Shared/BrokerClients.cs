using Prewire.Messaging;
#if PREWIRE_RABBITMQ
using Prewire.RabbitMQ;
#endif

namespace Prewire.Samples;

/// <summary>
/// What each client brings to an app: how it opens a session, publishes, dead-letters and receives.
/// The one place that names RabbitMQ.Client's side, compiled in only where the app is built with it
/// (<c>-p:PrewireAmqpClient=Both</c>; the default build has Prewire's client only).
/// </summary>
public static class BrokerClients
{
    /// <summary>Whether this build holds RabbitMQ.Client.</summary>
    public const bool HasRabbitMQ =
#if PREWIRE_RABBITMQ
        true;
#else
        false;
#endif

    /// <summary>The client an app uses when none is asked for, in every build: Prewire's.</summary>
    public const BrokerClient Default = BrokerClient.Prewire;

    /// <summary>The MSBuild argument that builds an app with RabbitMQ.Client beside Prewire's client.</summary>
    public const string BothClientsProperty = "-p:PrewireAmqpClient=Both";

    /// <summary>How <paramref name="client"/> opens a session to one node.</summary>
    public static BrokerSessionFactory Sessions(BrokerClient client) => client switch
    {
#if PREWIRE_RABBITMQ
        BrokerClient.RabbitMQ => RabbitMqSession.OpenAsync,
#endif
        _ => AmqpSession.OpenAsync,
    };

    /// <summary>The outgoing terminator of <paramref name="client"/>, attached with <see cref="BrokerOptions.AttachAsync"/>.</summary>
    public static BrokerDispatch Dispatch(BrokerClient client) => client switch
    {
#if PREWIRE_RABBITMQ
        BrokerClient.RabbitMQ => new RabbitMqDispatch(),
#endif
        _ => new AmqpPublisherDispatch(),
    };

    /// <summary>Gives RabbitMQ.Client's dispatch the connection (Prewire's is attached by <see cref="BrokerOptions.AttachAsync"/>).</summary>
    internal static void Attach(BrokerDispatch dispatch, BrokerConnection connection)
    {
#if PREWIRE_RABBITMQ
        if (dispatch is RabbitMqDispatch official)
        {
            official.Attach(connection);
            return;
        }
#endif
        throw new ArgumentException($"no way to attach {dispatch?.GetType().Name ?? "null"}", nameof(dispatch));
    }

    /// <summary>
    /// The dead-letter queue of <paramref name="client"/>, sending through the session of the connection
    /// <paramref name="connection"/> gives when the first dead letter comes (the pipeline is built before
    /// the app connects).
    /// </summary>
    public static IDeadLetterQueue DeadLetters(BrokerClient client, Func<BrokerConnection?> connection) => new Attaching(client, connection);

    /// <summary>The receiver of <paramref name="client"/> on <paramref name="connection"/>.</summary>
    public static BrokerReceiver Receiver(BrokerClient client, BrokerConnection connection, Pipeline.Pipeline<TransportReceiveContext> pipeline, Action<string, Exception> rejected, Action<Exception> connectionLost, Action<bool> consuming) => client switch
    {
#if PREWIRE_RABBITMQ
        BrokerClient.RabbitMQ => new RabbitMqReceiver(connection, pipeline, rejected) { ConnectionLost = connectionLost, Consuming = consuming },
#endif
        _ => new AmqpReceiver(connection, pipeline, rejected) { ConnectionLost = connectionLost, Consuming = consuming },
    };

    // Attaches the client's queue to the connection on first use.
    private sealed class Attaching(BrokerClient client, Func<BrokerConnection?> connection) : IDeadLetterQueue
    {
        private IDeadLetterQueue? _queue;

        public Task SendAsync(TransportReceiveContext message, Exception failure, int attempts) =>
            (_queue ??= Attach(client, connection() ?? throw new InvalidOperationException("No connection: dead letters need the broker."))).SendAsync(message, failure, attempts);
    }

#pragma warning disable CA1859 // Which queue it is depends on the client, and on the build.
    private static IDeadLetterQueue Attach(BrokerClient client, BrokerConnection connection)
#pragma warning restore CA1859
    {
#if PREWIRE_RABBITMQ
        if (client == BrokerClient.RabbitMQ)
        {
            var official = new RabbitMqDeadLetterQueue();
            official.Attach(connection);
            return official;
        }
#endif
        if (client != BrokerClient.Prewire) throw new ArgumentOutOfRangeException(nameof(client), client, "not a client of this build");
        var own = new AmqpDeadLetterQueue();
        own.Attach(connection);
        return own;
    }
}
