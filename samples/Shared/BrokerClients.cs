using Prewire.Messaging;
#if PREWIRE_RABBITMQ
using Prewire.RabbitMQ;
#endif

namespace Prewire.Samples;

/// <summary>
/// The clients an app can be asked for (<c>--client</c>): the one place that names RabbitMQ.Client's,
/// compiled in only where the app is built with it (<c>-p:PrewireAmqpClient=Both</c>; the default build
/// has Prewire's client only). Another client is one more line in <see cref="Named"/>.
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

    /// <summary>The MSBuild argument that builds an app with RabbitMQ.Client beside Prewire's client.</summary>
    public const string BothClientsProperty = "-p:PrewireAmqpClient=Both";

    /// <summary>The client an app uses when none is asked for, in every build: Prewire's.</summary>
    public static BrokerClient Default => AmqpClient.Instance;

    /// <summary>
    /// The client of this build named <paramref name="name"/> (lower case), or null. A switch, not a list:
    /// a collection of clients is a generic instantiation every NativeAOT app would rehydrate at start-up.
    /// </summary>
    public static BrokerClient? Named(string name) => name switch
    {
        "prewire" => AmqpClient.Instance,
#if PREWIRE_RABBITMQ
        "rabbitmq" => RabbitMqClient.Instance,
#endif
        _ => null,
    };

    /// <summary>
    /// A dead-letter queue of <paramref name="client"/>, sending through the connection
    /// <paramref name="connection"/> gives when the first dead letter comes (the pipeline is built before
    /// the app connects).
    /// </summary>
    public static IDeadLetterQueue DeadLetters(BrokerClient client, Func<BrokerConnection?> connection) => new Attaching(client, connection);

    // Attaches the client's queue to the connection on first use.
    private sealed class Attaching(BrokerClient client, Func<BrokerConnection?> connection) : IDeadLetterQueue
    {
        private IDeadLetterQueue? _queue;

        public Task SendAsync(TransportReceiveContext message, Exception failure, int attempts) =>
            (_queue ??= client.CreateDeadLetterQueue(connection() ?? throw new InvalidOperationException("No connection: dead letters need the broker."))).SendAsync(message, failure, attempts);
    }
}
