using Prewire.Amqp;
using Prewire.Messaging;
using RabbitMQ.Client;
using RabbitMQ.Client.Events;
using RabbitMQ.Client.Exceptions;
using BasicProperties = RabbitMQ.Client.BasicProperties;

namespace Prewire.RabbitMQ;

/// <summary>A RabbitMQ.Client connection and one channel, with the topology declared. Disposing closes both.</summary>
public sealed class RabbitMqSession : BrokerSession
{
    // RabbitMQ.Client 7.2.2 disposing a channel whose connection the broker closed can wait out its
    // 20 s continuation timeout for a close-ok that never comes (seen here under qemu and load: the first
    // attempt to reconnect came 20 s after the loss, no refusal before it; 4 s otherwise). A lost session
    // has nothing left to say to the broker.
    private static readonly TimeSpan _disposeLimit = TimeSpan.FromSeconds(2);

    private readonly TaskCompletionSource<AmqpException> _closed = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private readonly CancellationTokenSource _closing = new();
    private ShutdownEventArgs? _closeReason;

    private RabbitMqSession(BrokerSessionOptions options, AmqpUri uri, IConnection connection, IChannel channel)
        : base(options, uri)
    {
        Connection = connection;
        Channel = channel;
        // The channel's shutdown comes with its connection's too.
        channel.ChannelShutdownAsync += (_, reason) =>
        {
            Close(reason);
            return Task.CompletedTask;
        };
        // Closed between the open and the subscription: the event has been and gone.
        if (channel.CloseReason is { } early) Close(early);
    }

    /// <summary>The connection.</summary>
    public IConnection Connection { get; }

    /// <summary>The channel: publisher confirms on when <see cref="BrokerSessionOptions.Confirms"/>.</summary>
    public IChannel Channel { get; }

    /// <summary>
    /// Completes, with why in one line (in the words the zero-copy client uses), when the channel
    /// closed: the broker or the network ended it, or the session was disposed. Never faults.
    /// </summary>
    public override Task<AmqpException> Closed => _closed.Task;

    /// <summary><paramref name="session"/> as RabbitMQ.Client's.</summary>
    /// <exception cref="ArgumentException">It was opened with another client.</exception>
    public static RabbitMqSession Of(BrokerSession session) =>
        session as RabbitMqSession ?? throw new ArgumentException($"the session was opened with another client ({session?.GetType().Name}), not RabbitMQ.Client", nameof(session));

    /// <summary>Connects to <paramref name="uri"/>, opens the channel and declares the topology: a <see cref="BrokerSessionFactory"/>.</summary>
    /// <exception cref="AmqpException">The node refused or could not be reached.</exception>
    public static async Task<BrokerSession> OpenAsync(BrokerSessionOptions options, AmqpUri uri, CancellationToken cancellationToken)
    {
        var connection = await RabbitMqConnector.ConnectAsync(uri, options.ClientName, cancellationToken, options.Tls, options.ConnectTimeout).ConfigureAwait(false);
        try
        {
            var channel = await connection.CreateChannelAsync(
                new CreateChannelOptions(publisherConfirmationsEnabled: options.Confirms, publisherConfirmationTrackingEnabled: options.Confirms,
                    consumerDispatchConcurrency: Math.Max(options.ConsumerConcurrency, (ushort)1)),
                cancellationToken).ConfigureAwait(false);
            await BrokerTopology.DeclareAsync(options, new RabbitMqTopologyTarget(channel), cancellationToken).ConfigureAwait(false);
            return new RabbitMqSession(options, uri, connection, channel);
        }
        catch (Exception e)
        {
            await WithinAsync(connection.DisposeAsync().AsTask(), _disposeLimit).ConfigureAwait(false);
            if (e is OperationInterruptedException interrupted) throw RabbitMqConnector.Refused(uri, options.Queue, interrupted);
            throw;
        }
    }

    /// <summary>
    /// Publishes on <see cref="Channel"/> (confirmed when the channel has confirms on) and turns
    /// RabbitMQ.Client's failures into one-line <see cref="AmqpException"/>s: its messages carry the
    /// close reason's ToString, stack traces included. A refused dead letter is named as one.
    /// </summary>
    internal async Task PublishAsync(string exchange, string routingKey, bool mandatory, BasicProperties properties, ReadOnlyMemory<byte> body, bool deadLetter, CancellationToken cancellationToken)
    {
        // RabbitMQ.Client 7.2 fails the publishes awaiting confirms when the channel shuts down, but not
        // when the channel was disposed first (a publisher that found the loss replaces the session at
        // once): those would wait for ever. The session's own closing cancels them, and so does a confirm
        // that is overdue (ConfirmTimeout), which closes the session first.
        var timeout = Options.Confirms ? Options.ConfirmTimeout : Timeout.InfiniteTimeSpan;
        using var linked = cancellationToken.CanBeCanceled || timeout != Timeout.InfiniteTimeSpan
            ? CancellationTokenSource.CreateLinkedTokenSource(cancellationToken, _closing.Token)
            : null;
        if (timeout != Timeout.InfiniteTimeSpan) linked!.CancelAfter(timeout);
        try
        {
            var publish = Channel.BasicPublishAsync(exchange, routingKey, mandatory, properties, body, linked?.Token ?? _closing.Token);
            if (timeout == Timeout.InfiniteTimeSpan || publish.IsCompleted) await publish.ConfigureAwait(false);
            else await OwnClockAsync(publish.AsTask(), linked!.Token).ConfigureAwait(false);
        }
        catch (OperationCanceledException e) when (!cancellationToken.IsCancellationRequested)
        {
            if (!_closing.IsCancellationRequested)
            {
                Close(new ShutdownEventArgs(ShutdownInitiator.Application, (ushort)Constants.InternalError, $"no publisher confirm within {timeout.TotalSeconds:0.#} s"));
            }
            throw Lost(Volatile.Read(ref _closeReason), e);
        }
        catch (OperationInterruptedException e)
        {
            throw Lost(e);
        }
        // Another publish found the connection lost first and the session was disposed under this one.
        catch (ObjectDisposedException e)
        {
            throw Lost(reason: null, e);
        }
        catch (PublishException e)
        {
            throw new AmqpException(e.IsReturn ? AmqpExceptionKind.Returned : AmqpExceptionKind.Nacked,
                $"RabbitMQ at {Uri} did not take {(deadLetter ? $"the dead letter of message '{properties.MessageId}' ({exchange})" : $"message {properties.MessageId}")}: {(e.IsReturn ? "returned as unroutable" : "nacked")}", e);
        }
        // Once the session closed, whatever its channel throws (an InvalidOperationException from its
        // confirm tracking, say) is the loss showing: publish again on the next session.
        catch (Exception e) when (e is not (AmqpException or OperationCanceledException) && Volatile.Read(ref _closeReason) is { } reason)
        {
            throw Lost(reason, e);
        }
    }

    // The token ends our wait, whether or not RabbitMQ.Client ends the publish on it: after a broker
    // restart (arm64 under qemu, a loaded host) a Publisher stayed at 4,999 of 5,000 confirmed for 170 s,
    // past the 30 s limit, without a word. The publish is then left to end on its own.
    private static async Task OwnClockAsync(Task publish, CancellationToken token)
    {
        try
        {
            await publish.WaitAsync(token).ConfigureAwait(false);
        }
        catch (OperationCanceledException) when (!publish.IsCompleted)
        {
            Observe(publish);
            throw;
        }
    }

    // A failure nobody awaits any more, observed so it is not reported as unobserved.
    private static void Observe(Task operation) =>
        _ = operation.ContinueWith(static done => _ = done.Exception, CancellationToken.None,
            TaskContinuationOptions.OnlyOnFaulted | TaskContinuationOptions.ExecuteSynchronously, TaskScheduler.Default);

    private AmqpException Lost(OperationInterruptedException e) => Lost(e.ShutdownReason, e);

    // A lost connection in one line, in the words the zero-copy client uses: the broker's reply and who
    // closed it, when known, else the exception's type.
    private AmqpException Lost(ShutdownEventArgs? reason, Exception e) => new(AmqpExceptionKind.ConnectionClosed,
        $"lost the connection to RabbitMQ at {Uri}: {(reason is null ? e.GetType().Name : $"{reason.ReplyText} ({reason.ReplyCode}, closed by the {(reason.Initiator == ShutdownInitiator.Peer ? "broker" : "client")})")}", e);

    private void Close(ShutdownEventArgs reason)
    {
        if (Interlocked.CompareExchange(ref _closeReason, reason, null) is not null) return;
        _closed.TrySetResult(Lost(reason, new AlreadyClosedException(reason)));
        // Not inline: this runs on RabbitMQ.Client's connection loop, and a cancelled publisher goes on
        // to dispose this session.
        _ = _closing.CancelAsync();
    }

    /// <inheritdoc />
    protected override async ValueTask DisposeAsyncCore()
    {
        Close(new ShutdownEventArgs(ShutdownInitiator.Application, (ushort)Constants.ReplySuccess, "the session was disposed"));
        // A session whose connection was lost closes without a word: there is nothing left to tell the broker.
        try
        {
            await WithinAsync(Channel.DisposeAsync().AsTask(), _disposeLimit).ConfigureAwait(false);
            await WithinAsync(Connection.DisposeAsync().AsTask(), _disposeLimit).ConfigureAwait(false);
        }
        catch (Exception e) when (e is OperationInterruptedException or IOException or ObjectDisposedException)
        {
        }
    }

    /// <summary>
    /// Waits for <paramref name="operation"/> at most <paramref name="limit"/>, then leaves it to end on
    /// its own (its failure observed, never thrown); a failure within the limit is thrown.
    /// </summary>
    internal static async Task WithinAsync(Task operation, TimeSpan limit)
    {
        try
        {
            await operation.WaitAsync(limit).ConfigureAwait(false);
        }
        catch (TimeoutException) when (!operation.IsCompleted)
        {
            Observe(operation);
        }
    }
}
