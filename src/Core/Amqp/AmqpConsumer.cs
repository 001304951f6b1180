using Prewire.Amqp.Internal;
using Prewire.Framing.Internal.Methods;

namespace Prewire.Amqp;

/// <summary>
/// Consumes a queue on a channel of its own of an <see cref="AmqpConnection"/>: basic.qos, then
/// basic.consume, then each delivery handed to the <see cref="AmqpDeliveryHandler"/> with its body
/// where the socket put it (never copied), settled as the handler says, consecutive acks coalesced.
/// </summary>
/// <remarks>
/// <see cref="Completion"/> faults when the consumer ends without being stopped: the broker cancelled
/// it (<see cref="AmqpExceptionKind.ConsumerCancelled"/>: its queue was deleted), closed its channel,
/// or the connection was lost. Deliveries not settled by then are requeued by the broker; consume
/// again on a new connection to go on.
/// </remarks>
public sealed class AmqpConsumer : IAsyncDisposable
{
    private readonly AmqpConnection _connection;
    private readonly ConsumerChannel _channel;
    private int _stopped;

    private AmqpConsumer(AmqpConnection connection, ConsumerChannel channel, string consumerTag)
    {
        _connection = connection;
        _channel = channel;
        ConsumerTag = consumerTag;
    }

    /// <summary>The consumer tag the broker knows it by.</summary>
    public string ConsumerTag { get; }

    /// <summary>Completes when <see cref="StopAsync"/> is done; faults with why the consumer ended otherwise.</summary>
    public Task Completion => _channel.Completion;

    /// <summary>Deliveries received so far.</summary>
    public long Delivered => _channel.Delivered;

    /// <summary>Deliveries settled so far (acked, nacked or rejected).</summary>
    public long Settled => _channel.Settlements.Settled;

    /// <summary>Settlement frames written so far: fewer than <see cref="Settled"/> by what coalescing saved.</summary>
    public long SettlementFrames => _channel.Settlements.FramesWritten;

    /// <summary>Opens a channel on <paramref name="connection"/>, sets its prefetch and starts consuming.</summary>
    /// <exception cref="AmqpException">The broker refused: 404 for a missing queue, 403 for no access, 405 for a queue consumed exclusively.</exception>
    public static async Task<AmqpConsumer> StartAsync(AmqpConnection connection, AmqpConsumerOptions options, AmqpDeliveryHandler handler, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(connection);
        ArgumentNullException.ThrowIfNull(options);
        ArgumentNullException.ThrowIfNull(handler);
        ArgumentOutOfRangeException.ThrowIfLessThan(options.Concurrency, 1, nameof(options));
        var channel = new ConsumerChannel(connection, handler, options.Concurrency, options.AutoSettle, options.CoalesceAcks);
        await connection.OpenChannelsAsync([channel], cancellationToken).ConfigureAwait(false);
        try
        {
            await connection.CallAsync<BasicQos, BasicQosOk>(channel, new BasicQos(0, options.Prefetch, false), cancellationToken).ConfigureAwait(false);
            channel.Settlements.Start();
            var ok = await connection.CallAsync<BasicConsume, BasicConsumeOk>(channel,
                new BasicConsume(0, options.Queue, options.ConsumerTag, false, false, options.Exclusive, false, null), cancellationToken).ConfigureAwait(false);
            return new AmqpConsumer(connection, channel, ok.ConsumerTag);
        }
        catch (AmqpException e) when (e.Kind == AmqpExceptionKind.ChannelClosed)
        {
            await connection.CloseChannelAsync(channel, CancellationToken.None).ConfigureAwait(false);
            throw new AmqpException(connection.Broker, e);
        }
        catch
        {
            await connection.CloseChannelAsync(channel, CancellationToken.None).ConfigureAwait(false);
            throw;
        }
    }

    /// <summary>
    /// Stops consuming (basic.cancel): deliveries not yet handed to the handler go back to the queue, those
    /// being handled get up to <paramref name="drainTimeout"/> to finish and are settled, then the channel
    /// closes, and the broker requeues whatever is still unsettled.
    /// </summary>
    public async Task StopAsync(TimeSpan drainTimeout, CancellationToken cancellationToken = default)
    {
        if (Interlocked.Exchange(ref _stopped, 1) != 0) return;
        var drained = _channel.StopTakingAsync();
        if (_channel.Failure is null)
        {
            try
            {
                await _connection.CallAsync<BasicCancel, BasicCancelOk>(_channel, new BasicCancel(ConsumerTag, false), cancellationToken).ConfigureAwait(false);
            }
            catch (Exception e) when (e is AmqpException or IOException or ObjectDisposedException)
            {
                // Gone already: the broker requeues what was not settled.
            }
        }
        await Task.WhenAny(drained, Task.Delay(drainTimeout, cancellationToken)).ConfigureAwait(false);
        try
        {
            if (_channel.Failure is null) await _channel.Settlements.FlushAsync().ConfigureAwait(false);
        }
        catch (Exception e) when (e is AmqpException or IOException or ObjectDisposedException or InvalidOperationException)
        {
            // As above.
        }
        await _connection.CloseChannelAsync(_channel, cancellationToken).ConfigureAwait(false);
    }

    /// <inheritdoc />
    public ValueTask DisposeAsync() => new(StopAsync(TimeSpan.FromSeconds(5)));
}
