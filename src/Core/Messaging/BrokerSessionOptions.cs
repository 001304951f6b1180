using Prewire.Amqp;

namespace Prewire.Messaging;

/// <summary>What a <see cref="BrokerSession"/> connects to and declares.</summary>
public sealed class BrokerSessionOptions
{
    private readonly string? _routingKey;
    private readonly TimeSpan _confirmTimeout = TimeSpan.FromSeconds(30);
    private readonly TimeSpan _connectTimeout = TimeSpan.FromSeconds(10);

    /// <summary>The nodes to connect to, tried in turn. Their passwords are never logged or put in a message.</summary>
    public required IReadOnlyList<AmqpUri> Endpoints { get; init; }

    /// <summary>The queue the session declares if it does not exist yet.</summary>
    public required string Queue { get; init; }

    /// <summary>The kind of queue declared, the dead-letter queue's too.</summary>
    /// <remarks>Defaults to <see cref="BrokerQueueType.Quorum"/>: replicated, and what RabbitMQ recommends for data that must not be lost.</remarks>
    public BrokerQueueType QueueType { get; init; }

    /// <summary>The exchange messages are published to: declared (direct, durable) and bound to <see cref="Queue"/> with <see cref="RoutingKey"/>.</summary>
    /// <remarks>Defaults to the default exchange (""), which routes by queue name and needs no declaration.</remarks>
    public string Exchange { get; init; } = "";

    /// <summary>The routing key messages are published with, and <see cref="Queue"/> is bound with.</summary>
    /// <remarks>Defaults to <see cref="Queue"/>'s name.</remarks>
    public string RoutingKey { get => _routingKey ?? Queue; init => _routingKey = value; }

    /// <summary>The fanout exchange dead letters go to: the consumer's own (with reasons) and the broker's (rejects).</summary>
    public string DeadLetterExchange => $"{Queue}.dlx";

    /// <summary>The queue that keeps <see cref="Queue"/>'s dead letters.</summary>
    public string DeadLetterQueue => $"{Queue}.dead-letter";

    /// <summary>The name the broker shows for the session's connections.</summary>
    /// <remarks>Defaults to <c>prewire</c>.</remarks>
    public string ClientName { get; init; } = "prewire";

    /// <summary>Publisher confirms on the session's channel.</summary>
    /// <remarks>Defaults to <see langword="false"/>.</remarks>
    public bool Confirms { get; init; }

    /// <summary>
    /// How long a publish waits for its confirm before the session is given up as lost: its publishes
    /// then fail as on a lost connection, to be published again on a new one. <see cref="Timeout.InfiniteTimeSpan"/>
    /// waits for ever.
    /// </summary>
    /// <remarks>
    /// Defaults to 30 seconds. RabbitMQ.Client 7.2 can leave a publish waiting for a confirm that never
    /// comes on a channel that is otherwise well (rabbitmq-dotnet-client#1930; seen here after a broker
    /// restart: 4,999 of 5,000 confirmed, the last one never). A broker that blocked publishers for a
    /// resource alarm also stops confirming, so the session is replaced every timeout until it unblocks.
    /// </remarks>
    public TimeSpan ConfirmTimeout
    {
        get => _confirmTimeout;
        init
        {
            if (value <= TimeSpan.Zero && value != Timeout.InfiniteTimeSpan)
                throw new ArgumentOutOfRangeException(nameof(value), value, $"{nameof(ConfirmTimeout)} must be positive, or Timeout.InfiniteTimeSpan");
            _confirmTimeout = value;
        }
    }

    /// <summary>How long opening a connection may take: TCP, TLS and the AMQP handshake together (either client).</summary>
    /// <remarks>
    /// Defaults to 10 seconds. Raise it for a node far away or a machine far slower: an arm64 app under
    /// qemu on a busy 2-core host once needed more than 10 s for its amqps handshake.
    /// </remarks>
    public TimeSpan ConnectTimeout
    {
        get => _connectTimeout;
        init
        {
            if (value <= TimeSpan.Zero) throw new ArgumentOutOfRangeException(nameof(value), value, $"{nameof(ConnectTimeout)} must be positive");
            _connectTimeout = value;
        }
    }

    /// <summary>How <c>amqps://</c> endpoints check the broker and show who the client is (either client).</summary>
    /// <remarks>Defaults to the system's trust store and no client certificate.</remarks>
    public AmqpTlsOptions Tls { get; init; } = new();

    /// <summary>Deliveries the session's channel hands to its consumer at once; above 1 they are handled concurrently, in no set order.</summary>
    /// <remarks>Defaults to 1: one at a time, in the order the broker sent them.</remarks>
    public ushort ConsumerConcurrency { get; init; } = 1;
}
