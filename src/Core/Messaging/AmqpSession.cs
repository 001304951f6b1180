using Prewire.Amqp;
using Prewire.Messaging.Internal;
using Prewire.Transport;

namespace Prewire.Messaging;

/// <summary>
/// A <see cref="BrokerSession"/> on Prewire's own client: one <see cref="AmqpConnection"/> with the
/// <see cref="BrokerTopology"/> declared.
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
            // The limit is the whole open's, TCP included: the transport's own 10 s would cut a longer one short.
            var connect = new AmqpConnectionOptions
            {
                Uri = uri,
                ClientName = options.ClientName,
                Tls = options.Tls,
                HandshakeTimeout = options.ConnectTimeout,
                Transport = new SocketConnectionOptions { ConnectTimeout = options.ConnectTimeout },
            };
            connection = await AmqpConnection.ConnectAsync(connect, cancellationToken).ConfigureAwait(false);
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
            throw Refused(uri, queue: null, e.ReplyCode, e.ReplyText, e);
        }
        try
        {
            await BrokerTopology.DeclareAsync(options, new AmqpTopologyTarget(connection), cancellationToken).ConfigureAwait(false);
            return new AmqpSession(options, uri, connection);
        }
        catch (Exception e)
        {
            await connection.DisposeAsync().ConfigureAwait(false);
            if (e is AmqpException { ReplyCode: 406 } refused) throw Refused(uri, options.Queue, refused.ReplyCode, refused.ReplyText, e);
            throw;
        }
    }

    /// <inheritdoc />
    protected override async ValueTask DisposeAsyncCore() => await Connection.DisposeAsync().ConfigureAwait(false);

    // The connection's end, in the words RabbitMQ.Client's session uses: a loss the reconnection handles.
    private static async Task<AmqpException> LostAsync(AmqpConnection connection, AmqpUri uri)
    {
        var reason = await connection.Closed.ConfigureAwait(false);
        return new AmqpException(AmqpExceptionKind.ConnectionClosed, $"lost the connection to RabbitMQ at {uri}: {reason.Message}", reason);
    }
}
