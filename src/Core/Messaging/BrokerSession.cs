using Prewire.Amqp;

namespace Prewire.Messaging;

/// <summary>
/// One connection to one node, with the topology of <see cref="Options"/> declared, through one client
/// (RabbitMQ.Client's session in Prewire.RabbitMQ, or <see cref="AmqpSession"/> on Prewire's own).
/// <see cref="Closed"/> completes, with why, when it is lost; a <see cref="BrokerConnection"/> then
/// replaces it.
/// </summary>
public abstract class BrokerSession : IAsyncDisposable
{
    /// <summary>Made by a client's session once connected.</summary>
    protected BrokerSession(BrokerSessionOptions options, AmqpUri uri)
    {
        Options = options;
        Uri = uri;
    }

    /// <summary>The options it was opened with.</summary>
    public BrokerSessionOptions Options { get; }

    /// <summary>The node it is connected to.</summary>
    public AmqpUri Uri { get; }

    /// <summary>Completes with why the session was lost (<see cref="AmqpException.ConnectionLost"/>), or that it was disposed.</summary>
    public abstract Task<AmqpException> Closed { get; }

    /// <summary>
    /// Opens a session with <paramref name="open"/>, trying each endpoint once from
    /// <paramref name="firstEndpoint"/> on until one can be used.
    /// </summary>
    /// <exception cref="AmqpException">No endpoint could be used: each one's reason.</exception>
    public static async Task<BrokerSession> OpenAsync(BrokerSessionOptions options, BrokerSessionFactory open, CancellationToken cancellationToken, int firstEndpoint = 0)
    {
        ArgumentNullException.ThrowIfNull(options);
        ArgumentNullException.ThrowIfNull(open);
        if (options.Endpoints.Count == 0) throw new ArgumentException("no endpoint given", nameof(options));
        var failures = new List<AmqpException>();
        for (var i = 0; i < options.Endpoints.Count; i++)
        {
            var uri = options.Endpoints[(firstEndpoint + i) % options.Endpoints.Count];
            try
            {
                return await open(options, uri, cancellationToken).ConfigureAwait(false);
            }
            catch (AmqpException e)
            {
                failures.Add(e);
            }
        }
        throw failures.Count == 1 ? failures[0]
            : new AmqpException($"no RabbitMQ node of {failures.Count} could be used: {string.Join("; ", failures.Select(f => f.Message))}", new AggregateException(failures));
    }

    /// <summary>
    /// A node's refusal while a session opened, in one line for every client: 530 is RabbitMQ's answer to
    /// a virtual host that does not exist or that the user may not use (it comes when the first channel
    /// opens, not with the connection); 406 to a queue declared with settings other than those it exists
    /// with (a classic queue declared as quorum, say). <paramref name="queue"/> is null before the topology.
    /// </summary>
    public static AmqpException Refused(AmqpUri uri, string? queue, ushort replyCode, string replyText, Exception innerException)
    {
        ArgumentNullException.ThrowIfNull(uri);
        return replyCode switch
        {
            530 => new AmqpException(AmqpExceptionKind.ConnectionClosed, $"RabbitMQ at {uri} refused virtual host '{uri.VirtualHost}': {replyText}", innerException),
            406 when queue is not null => new AmqpException(AmqpExceptionKind.ChannelClosed,
                $"RabbitMQ at {uri} refused the topology of queue '{queue}', which exists with other settings (delete it, or pick another queue or queue type): {replyText}", innerException),
            _ => new AmqpException(AmqpExceptionKind.ConnectionClosed, $"RabbitMQ at {uri} closed the connection: {replyText} ({replyCode})", innerException),
        };
    }

    /// <inheritdoc />
    public async ValueTask DisposeAsync()
    {
        await DisposeAsyncCore().ConfigureAwait(false);
        GC.SuppressFinalize(this);
    }

    /// <summary>Closes the client's connection; a lost one quietly.</summary>
    protected abstract ValueTask DisposeAsyncCore();
}
