using Prewire.Amqp;
using Prewire.Messaging;
using Prewire.Samples;
using ILogger = Serilog.ILogger;

namespace Prewire.HttpEndpoint;

/// <summary>
/// The endpoint's broker connection, kept up for as long as the server runs: opened in the background
/// (a server starts, and says it is not ready, while its broker is away), watched, and replaced with
/// backoff whenever it is lost, however long that takes. Requests are answered 503 in the meantime.
/// </summary>
internal sealed class BrokerLink(BrokerSessionOptions? options, BrokerClient client, BrokerDispatch dispatch, ILogger log) : IAsyncDisposable
{
    private static readonly ReconnectPolicy _keepTrying = new() { GiveUpAfter = Timeout.InfiniteTimeSpan };

    private readonly CancellationTokenSource _stop = new();
    private Task _running = Task.CompletedTask;
    private BrokerConnection? _connection;
    private volatile string _notReady = options is null ? "no broker configured (--uri / RABBITMQ_URI)" : "connecting to RabbitMQ";

    /// <summary>Whether a publish can go out now; otherwise <see cref="NotReadyReason"/> says why.</summary>
    public bool IsReady => _notReady.Length == 0;

    /// <summary>Why publishes cannot go out now, for a 503 and <c>/health/ready</c>; empty when ready.</summary>
    public string NotReadyReason => _notReady;

    public void Start()
    {
        if (options is not null) _running = RunAsync(options, _stop.Token);
    }

    private async Task RunAsync(BrokerSessionOptions options, CancellationToken stopping)
    {
        try
        {
            var connection = _connection = await ConnectAsync(options, stopping).ConfigureAwait(false);
            await dispatch.AttachAsync(connection, stopping).ConfigureAwait(false);
            while (true)
            {
                var session = connection.Session;
                _notReady = "";
                var why = (await session.Closed.WaitAsync(stopping).ConfigureAwait(false)).Message;
                _notReady = why;
                log.Warning("{Error}; reconnecting (requests are answered 503 until then)", why);
                await connection.ReconnectAsync(session, stopping).ConfigureAwait(false);
            }
        }
        catch (OperationCanceledException) when (stopping.IsCancellationRequested)
        {
        }
    }

    // At start each node is tried in turn, then again with backoff until one answers.
    private async Task<BrokerConnection> ConnectAsync(BrokerSessionOptions options, CancellationToken stopping)
    {
        for (var attempt = 1; ; attempt++)
        {
            try
            {
                return await BrokerOptions.ConnectAsync(options, client, log, stopping, _keepTrying).ConfigureAwait(false);
            }
            catch (AmqpException e)
            {
                var delay = _keepTrying.DelayAfter(attempt);
                _notReady = e.Message;
                log.Warning("{Error}; trying again in {Delay:0} ms (requests are answered 503 until then)", e.Message, delay.TotalMilliseconds);
                await Task.Delay(delay, stopping).ConfigureAwait(false);
            }
        }
    }

    public async ValueTask DisposeAsync()
    {
        await _stop.CancelAsync().ConfigureAwait(false);
        await _running.ConfigureAwait(false);
        if (_connection is not null) await _connection.DisposeAsync().ConfigureAwait(false);
        _stop.Dispose();
    }
}
