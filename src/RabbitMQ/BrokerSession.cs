using Prewire.Amqp;
using RabbitMQ.Client;
using RabbitMQ.Client.Events;
using RabbitMQ.Client.Exceptions;
using BasicProperties = RabbitMQ.Client.BasicProperties;

namespace Prewire.RabbitMQ;

/// <summary>A RabbitMQ.Client connection and one channel, with the topology declared. Disposing closes both.</summary>
public sealed class BrokerSession : IAsyncDisposable
{
    private readonly TaskCompletionSource<AmqpException> _closed = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private readonly CancellationTokenSource _closing = new();
    private ShutdownEventArgs? _closeReason;

    private BrokerSession(BrokerSessionOptions options, AmqpUri uri, IConnection connection, IChannel channel)
    {
        Options = options;
        Uri = uri;
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

    /// <summary>What the session was opened with.</summary>
    public BrokerSessionOptions Options { get; }

    /// <summary>The endpoint of <see cref="BrokerSessionOptions.Endpoints"/> it connected to.</summary>
    public AmqpUri Uri { get; }

    /// <summary>The connection.</summary>
    public IConnection Connection { get; }

    /// <summary>The channel: publisher confirms on when <see cref="BrokerSessionOptions.Confirms"/>.</summary>
    public IChannel Channel { get; }

    /// <summary>
    /// Completes, with why in one line (in the words the zero-copy client uses), when the channel
    /// closed: the broker or the network ended it, or the session was disposed. Never faults.
    /// </summary>
    public Task<AmqpException> Closed => _closed.Task;

    /// <summary>
    /// Connects to the first endpoint that answers, starting at <paramref name="firstEndpoint"/>, opens
    /// the channel and declares the topology: the queue (with its dead-letter exchange), the dead-letter
    /// queue, and the exchange and binding when <see cref="BrokerSessionOptions.Exchange"/> is not the
    /// default one. Declaring is idempotent; a queue that exists with other settings is an error.
    /// </summary>
    /// <exception cref="AmqpException">No endpoint could be reached, or the broker refused the connection or the topology.</exception>
    public static async Task<BrokerSession> OpenAsync(BrokerSessionOptions options, CancellationToken cancellationToken, int firstEndpoint = 0)
    {
        ArgumentNullException.ThrowIfNull(options);
        if (options.Endpoints.Count == 0) throw new ArgumentException("no endpoint given", nameof(options));
        var failures = new List<AmqpException>();
        for (var i = 0; i < options.Endpoints.Count; i++)
        {
            var uri = options.Endpoints[(firstEndpoint + i) % options.Endpoints.Count];
            try
            {
                return await OpenAsync(options, uri, cancellationToken).ConfigureAwait(false);
            }
            catch (AmqpException e)
            {
                failures.Add(e);
            }
        }
        throw failures.Count == 1 ? failures[0]
            : new AmqpException($"no RabbitMQ node of {failures.Count} could be used: {string.Join("; ", failures.Select(f => f.Message))}", new AggregateException(failures));
    }

    private static async Task<BrokerSession> OpenAsync(BrokerSessionOptions options, AmqpUri uri, CancellationToken cancellationToken)
    {
        var connection = await RabbitMqConnector.ConnectAsync(uri, options.ClientName, cancellationToken).ConfigureAwait(false);
        try
        {
            var channel = await connection.CreateChannelAsync(
                new CreateChannelOptions(publisherConfirmationsEnabled: options.Confirms, publisherConfirmationTrackingEnabled: options.Confirms,
                    consumerDispatchConcurrency: Math.Max(options.ConsumerConcurrency, (ushort)1)),
                cancellationToken).ConfigureAwait(false);
            await DeclareAsync(channel, options, cancellationToken).ConfigureAwait(false);
            return new BrokerSession(options, uri, connection, channel);
        }
        catch (Exception e)
        {
            await connection.DisposeAsync().ConfigureAwait(false);
            if (e is OperationInterruptedException interrupted) throw RabbitMqConnector.Refused(uri, options.Queue, interrupted);
            throw;
        }
    }

    private static async Task DeclareAsync(IChannel channel, BrokerSessionOptions options, CancellationToken cancellationToken)
    {
        var type = options.QueueType == BrokerQueueType.Quorum ? "quorum" : "classic";
        await channel.ExchangeDeclareAsync(options.DeadLetterExchange, ExchangeType.Fanout, durable: true, autoDelete: false, cancellationToken: cancellationToken).ConfigureAwait(false);
        await channel.QueueDeclareAsync(options.DeadLetterQueue, durable: true, exclusive: false, autoDelete: false,
            new Dictionary<string, object?> { ["x-queue-type"] = type }, cancellationToken: cancellationToken).ConfigureAwait(false);
        await channel.QueueBindAsync(options.DeadLetterQueue, options.DeadLetterExchange, "", cancellationToken: cancellationToken).ConfigureAwait(false);

        // Rejected messages (and those of a queue type with a delivery limit) go to the same place as
        // the consumer's own dead letters.
        await channel.QueueDeclareAsync(options.Queue, durable: true, exclusive: false, autoDelete: false,
            new Dictionary<string, object?> { ["x-queue-type"] = type, ["x-dead-letter-exchange"] = options.DeadLetterExchange },
            cancellationToken: cancellationToken).ConfigureAwait(false);
        if (options.Exchange.Length == 0) return;
        await channel.ExchangeDeclareAsync(options.Exchange, ExchangeType.Direct, durable: true, autoDelete: false, cancellationToken: cancellationToken).ConfigureAwait(false);
        await channel.QueueBindAsync(options.Queue, options.Exchange, options.RoutingKey, cancellationToken: cancellationToken).ConfigureAwait(false);
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
            await Channel.BasicPublishAsync(exchange, routingKey, mandatory, properties, body, linked?.Token ?? _closing.Token).ConfigureAwait(false);
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
    }

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
    public async ValueTask DisposeAsync()
    {
        Close(new ShutdownEventArgs(ShutdownInitiator.Application, (ushort)Constants.ReplySuccess, "the session was disposed"));
        // A session whose connection was lost closes without a word: there is nothing left to tell the broker.
        try
        {
            await Channel.DisposeAsync().ConfigureAwait(false);
            await Connection.DisposeAsync().ConfigureAwait(false);
        }
        catch (Exception e) when (e is OperationInterruptedException or IOException or ObjectDisposedException)
        {
        }
    }
}
