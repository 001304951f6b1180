using Prewire.Amqp;

namespace Prewire.Messaging;

/// <summary>
/// A <see cref="BrokerSession"/> on Prewire's own client: one <see cref="AmqpConnection"/> with the
/// topology declared (the dead-letter exchange and queue, the queue with its dead-letter exchange, the
/// exchange and binding), as RabbitMQ.Client's session declares it.
/// </summary>
public sealed class AmqpSession : BrokerSession
{
    private readonly Task<AmqpException> _closed;

    private AmqpSession(BrokerSessionOptions options, AmqpUri uri, AmqpConnection connection)
        : base(options, uri)
    {
        Connection = connection;
        _closed = LostAsync(connection, uri);
    }

    /// <summary>The connection: the publisher, the consumer and the dead letters take channels on it.</summary>
    public AmqpConnection Connection { get; }

    /// <inheritdoc />
    public override Task<AmqpException> Closed => _closed;

    /// <summary><paramref name="session"/> as Prewire's client's.</summary>
    /// <exception cref="ArgumentException">It was opened with another client.</exception>
    public static AmqpSession Of(BrokerSession session) =>
        session as AmqpSession ?? throw new ArgumentException($"the session was opened with another client ({session?.GetType().Name}), not Prewire's", nameof(session));

    /// <summary>Connects to <paramref name="uri"/> and declares the topology: a <see cref="BrokerSessionFactory"/>.</summary>
    /// <exception cref="AmqpException">The node could not be reached or refused (one line naming it, never the password).</exception>
    public static async Task<BrokerSession> OpenAsync(BrokerSessionOptions options, AmqpUri uri, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(options);
        AmqpConnection connection;
        try
        {
            connection = await AmqpConnection.ConnectAsync(new AmqpConnectionOptions { Uri = uri, ClientName = options.ClientName, Tls = options.Tls, HandshakeTimeout = options.ConnectTimeout }, cancellationToken).ConfigureAwait(false);
        }
        catch (IOException e)
        {
            // Worded as RabbitMQ.Client's connector words it: the socket's reason alone, not "cannot connect to" again.
            var reason = e.InnerException is System.Net.Sockets.SocketException socket ? socket.Message : e.Message;
            throw new AmqpException(AmqpExceptionKind.ConnectionClosed, $"cannot reach RabbitMQ at {uri}: {reason}", e);
        }
        catch (AmqpException e) when (e.ReplyCode == 403)
        {
            throw new AmqpException(AmqpExceptionKind.ConnectionClosed, $"cannot reach RabbitMQ at {uri}: credentials refused ({e.ReplyText})", e);
        }
        catch (AmqpException e) when (e.ReplyCode == 530)
        {
            throw new AmqpException(AmqpExceptionKind.ConnectionClosed, $"RabbitMQ at {uri} refused virtual host '{uri.VirtualHost}': {e.ReplyText}", e);
        }
        try
        {
            await DeclareAsync(connection, options, cancellationToken).ConfigureAwait(false);
            return new AmqpSession(options, uri, connection);
        }
        catch (Exception e)
        {
            await connection.DisposeAsync().ConfigureAwait(false);
            if (e is AmqpException { ReplyCode: 406 } refused)
            {
                throw new AmqpException(AmqpExceptionKind.ChannelClosed,
                    $"RabbitMQ at {uri} refused the topology of queue '{options.Queue}', which exists with other settings (delete it, or pick another queue or queue type): {refused.ReplyText}", e);
            }
            throw;
        }
    }

    /// <inheritdoc />
    protected override async ValueTask DisposeAsyncCore() => await Connection.DisposeAsync().ConfigureAwait(false);

    private static async Task DeclareAsync(AmqpConnection connection, BrokerSessionOptions options, CancellationToken cancellationToken)
    {
        var type = options.QueueType == BrokerQueueType.Quorum ? "quorum" : "classic";
        await connection.DeclareExchangeAsync(options.DeadLetterExchange, "fanout", cancellationToken: cancellationToken).ConfigureAwait(false);
        await connection.DeclareQueueAsync(options.DeadLetterQueue, arguments: new() { ["x-queue-type"] = type }, cancellationToken: cancellationToken).ConfigureAwait(false);
        await connection.BindQueueAsync(options.DeadLetterQueue, options.DeadLetterExchange, "", cancellationToken: cancellationToken).ConfigureAwait(false);
        // Rejected messages (and those of a queue type with a delivery limit) go to the same place as
        // the consumer's own dead letters.
        await connection.DeclareQueueAsync(options.Queue, arguments: new() { ["x-queue-type"] = type, ["x-dead-letter-exchange"] = options.DeadLetterExchange },
            cancellationToken: cancellationToken).ConfigureAwait(false);
        if (options.Exchange.Length == 0) return;
        await connection.DeclareExchangeAsync(options.Exchange, "direct", cancellationToken: cancellationToken).ConfigureAwait(false);
        await connection.BindQueueAsync(options.Queue, options.Exchange, options.RoutingKey, cancellationToken: cancellationToken).ConfigureAwait(false);
    }

    // The connection's end, in the words RabbitMQ.Client's session uses: a loss the reconnection handles.
    private static async Task<AmqpException> LostAsync(AmqpConnection connection, AmqpUri uri)
    {
        var reason = await connection.Closed.ConfigureAwait(false);
        return new AmqpException(AmqpExceptionKind.ConnectionClosed, $"lost the connection to RabbitMQ at {uri}: {reason.Message}", reason);
    }
}
