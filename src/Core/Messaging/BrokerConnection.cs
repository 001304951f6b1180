using Prewire.Amqp;

namespace Prewire.Messaging;

/// <summary>
/// A <see cref="BrokerSession"/> that outlives its connection: whoever finds the session lost calls
/// <see cref="ReconnectAsync"/>, and every caller that lost the same session waits for the one new
/// session that replaces it, opened with backoff on the next endpoint first (another node of a cluster).
/// </summary>
public sealed class BrokerConnection : IAsyncDisposable
{
    private readonly Lock _gate = new();
    private readonly List<Func<BrokerSession, CancellationToken, Task>> _onReconnected = [];
    private BrokerSession _session;
    private Task<BrokerSession>? _reconnecting;
    private int _endpoint;
    private int _reconnects;

    private readonly BrokerSessionFactory _open;

    private BrokerConnection(BrokerSession session, BrokerSessionFactory open, ReconnectPolicy policy)
    {
        _open = open;
        _session = session;
        _endpoint = IndexOf(session);
        Policy = policy;
    }

    /// <summary>The session in use.</summary>
    public BrokerSession Session => Volatile.Read(ref _session);

    /// <summary>How the connection tries again.</summary>
    public ReconnectPolicy Policy { get; }

    /// <summary>How many times a lost session was replaced.</summary>
    public int Reconnects => Volatile.Read(ref _reconnects);

    /// <summary>Called when an attempt to reconnect failed, with why and the wait before the next one.</summary>
    public Action<Exception, TimeSpan>? RetryingAfter { get; set; }

    /// <summary>Called with each new session once it replaced the lost one.</summary>
    public Action<BrokerSession>? Reconnected { get; set; }

    /// <summary>
    /// Opens the first session: each endpoint once, no backoff, so a broker that is not there at start
    /// is reported at once.
    /// </summary>
    /// <exception cref="AmqpException">No endpoint could be used.</exception>
    public static async Task<BrokerConnection> OpenAsync(BrokerSessionOptions options, BrokerSessionFactory open, ReconnectPolicy policy, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(policy);
        ArgumentNullException.ThrowIfNull(open);
        return new BrokerConnection(await BrokerSession.OpenAsync(options, open, cancellationToken).ConfigureAwait(false), open, policy);
    }

    /// <summary>
    /// Runs <paramref name="reconnected"/> with each new session before it is handed out (a second
    /// client connecting to the same node, say); when it throws, that attempt counts as failed.
    /// </summary>
    public void OnReconnected(Func<BrokerSession, CancellationToken, Task> reconnected)
    {
        ArgumentNullException.ThrowIfNull(reconnected);
        lock (_gate) _onReconnected.Add(reconnected);
    }

    /// <summary>
    /// Replaces <paramref name="lost"/> with a new session, or returns the one that already replaced it.
    /// </summary>
    /// <exception cref="AmqpException">No session could be opened within <see cref="ReconnectPolicy.GiveUpAfter"/>.</exception>
    /// <exception cref="OperationCanceledException"><paramref name="cancellationToken"/> was cancelled while waiting.</exception>
    public Task<BrokerSession> ReconnectAsync(BrokerSession lost, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(lost);
        lock (_gate)
        {
            if (!ReferenceEquals(_session, lost)) return Task.FromResult(_session);
            return (_reconnecting ??= ReplaceAsync(lost, cancellationToken)).WaitAsync(cancellationToken);
        }
    }

    private async Task<BrokerSession> ReplaceAsync(BrokerSession lost, CancellationToken cancellationToken)
    {
        await lost.DisposeAsync().ConfigureAwait(false);
        var giveUpAt = Policy.GiveUpAfter == Timeout.InfiniteTimeSpan ? DateTime.MaxValue : DateTime.UtcNow + Policy.GiveUpAfter;
        for (var attempt = 1; ; attempt++)
        {
            // The next endpoint first: when a cluster node went down, another one takes over.
            var first = (_endpoint + attempt) % lost.Options.Endpoints.Count;
            BrokerSession? session = null;
            try
            {
                session = await BrokerSession.OpenAsync(lost.Options, _open, cancellationToken, first).ConfigureAwait(false);
                Func<BrokerSession, CancellationToken, Task>[] hooks;
                lock (_gate) hooks = [.. _onReconnected];
                foreach (var hook in hooks) await hook(session, cancellationToken).ConfigureAwait(false);
                lock (_gate)
                {
                    (_session, _reconnecting, _endpoint) = (session, null, IndexOf(session));
                    _reconnects++;
                }
                Reconnected?.Invoke(session);
                return session;
            }
            catch (Exception e) when (e is AmqpException or IOException)
            {
                if (session is not null) await session.DisposeAsync().ConfigureAwait(false);
                var delay = Policy.DelayAfter(attempt);
                if (DateTime.UtcNow + delay > giveUpAt)
                {
                    throw new AmqpException(
                        $"could not reconnect to RabbitMQ ({string.Join(", ", lost.Options.Endpoints)}) within {Policy.GiveUpAfter.TotalSeconds:0} s: {e.Message}", e);
                }
                RetryingAfter?.Invoke(e, delay);
                await Task.Delay(delay, cancellationToken).ConfigureAwait(false);
            }
        }
    }

    private static int IndexOf(BrokerSession session)
    {
        for (var i = 0; i < session.Options.Endpoints.Count; i++)
        {
            if (ReferenceEquals(session.Options.Endpoints[i], session.Uri)) return i;
        }
        return 0;
    }

    /// <inheritdoc />
    public async ValueTask DisposeAsync()
    {
        Task<BrokerSession>? reconnecting;
        lock (_gate) reconnecting = _reconnecting;
        if (reconnecting is not null)
        {
            try
            {
                await reconnecting.ConfigureAwait(false);
            }
            catch (Exception e) when (e is AmqpException or OperationCanceledException)
            {
                // Reported to whoever asked for the reconnection.
            }
        }
        await Session.DisposeAsync().ConfigureAwait(false);
    }
}
