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

    /// <inheritdoc />
    public async ValueTask DisposeAsync()
    {
        await DisposeAsyncCore().ConfigureAwait(false);
        GC.SuppressFinalize(this);
    }

    /// <summary>Closes the client's connection; a lost one quietly.</summary>
    protected abstract ValueTask DisposeAsyncCore();
}
