using Prewire.Amqp;
using Prewire.Messaging;
using Prewire.Pipeline;
using Prewire.RabbitMQ.Internal;
using RabbitMQ.Client;
using RabbitMQ.Client.Events;
using RabbitMQ.Client.Exceptions;

namespace Prewire.RabbitMQ;

/// <summary>
/// Consumes a queue with RabbitMQ.Client and runs each delivery through the incoming pipeline.
/// A delivery is acknowledged only after the pipeline completed (handled, dead-lettered or found a
/// duplicate, <see cref="TransportReceiveContext.Outcome"/>); one whose pipeline fails is rejected
/// without requeue (the queue dead-letters it), so nothing acknowledged was left unprocessed. A lost
/// connection is replaced through the <see cref="BrokerConnection"/> and consuming goes on.
/// </summary>
public sealed class RabbitMqReceiver(BrokerConnection connection, Pipeline<TransportReceiveContext> pipeline, Action<string, Exception> rejected)
{
    private int _started;
    private int _taken;
    private long _handled;
    private long _deadLettered;
    private long _duplicates;
    private long _rejected;
    private int _inFlight;
    private int _closing;

    /// <summary>How long a stop waits for the deliveries being handled to finish; those still running stay unacknowledged and are redelivered.</summary>
    /// <remarks>Defaults to 4 seconds: within the 5 s a container runtime gives before SIGKILL.</remarks>
    public TimeSpan DrainTimeout { get; init; } = TimeSpan.FromSeconds(4);

    /// <summary>Called when the connection was lost, before reconnecting.</summary>
    public Action<Exception>? ConnectionLost { get; init; }

    /// <summary>
    /// Called with <see langword="true"/> once the broker accepted the consumer (again after each
    /// reconnection), and with <see langword="false"/> when its channel is lost or the run stops.
    /// </summary>
    public Action<bool>? Consuming { get; init; }

    /// <summary>
    /// Settles <paramref name="count"/> deliveries (<see cref="ReceiveResult.Settled"/>), or fewer when
    /// <paramref name="stopping"/> is cancelled first: then it takes no more, waits for those being
    /// handled (up to <see cref="DrainTimeout"/>) and returns. Without a count it consumes until stopped.
    /// </summary>
    /// <param name="count">Deliveries to settle, more are never handled and stay in the queue; <see langword="null"/> for every delivery until <paramref name="stopping"/>.</param>
    /// <param name="prefetch">Unacknowledged deliveries the broker may send ahead (AMQP basic.qos); 0 for no limit.</param>
    /// <param name="stopping">Stops taking deliveries; the ones being handled still finish.</param>
    /// <exception cref="AmqpException">The connection was lost and could not be replaced.</exception>
    public async Task<ReceiveResult> ReceiveAsync(int? count, ushort prefetch, CancellationToken stopping)
    {
        ArgumentNullException.ThrowIfNull(connection);
        if (Interlocked.Exchange(ref _started, 1) != 0) throw new InvalidOperationException("a receiver runs once");
        // Without a limit the broker pushes the whole queue to this channel; with a count, never more than it.
        var most = count ?? ushort.MaxValue;
        var limit = prefetch == 0 || prefetch > most ? (ushort)Math.Min(most, ushort.MaxValue) : prefetch;
        var done = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        var drained = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        var reconnectsBefore = connection.Reconnects;
        using var onStop = stopping.Register(() => done.TrySetResult());

        while (true)
        {
            var session = connection.Session;
            var consumer = new AsyncEventingBasicConsumer(session.Channel);
            consumer.ReceivedAsync += (_, delivery) => OnDeliveryAsync(session.Channel, delivery, count, done, drained);
            string? tag = null;
            try
            {
                // Not cancelled by the stop: a stop that comes this early still ends in a normal return.
                await session.Channel.BasicQosAsync(0, limit, global: false, CancellationToken.None).ConfigureAwait(false);
                tag = await session.Channel.BasicConsumeAsync(session.Options.Queue, autoAck: false, consumer, CancellationToken.None).ConfigureAwait(false);
                Consuming?.Invoke(true);
            }
            catch (OperationInterruptedException)
            {
                // The channel closed: the session says why.
            }

            var stopped = await Task.WhenAny(done.Task, session.Closed).ConfigureAwait(false) == done.Task;
            Consuming?.Invoke(false);
            if (stopped)
            {
                Volatile.Write(ref _closing, 1);
                if (tag is not null && session.Channel.IsOpen)
                {
                    try
                    {
                        await session.Channel.BasicCancelAsync(tag, noWait: false, CancellationToken.None).ConfigureAwait(false);
                    }
                    catch (OperationInterruptedException)
                    {
                        // Lost as we stop: whatever was not acknowledged is redelivered.
                    }
                }
                if (Volatile.Read(ref _inFlight) == 0) drained.TrySetResult();
                await Task.WhenAny(drained.Task, Task.Delay(DrainTimeout, CancellationToken.None)).ConfigureAwait(false);
                return Result();
            }

            ConnectionLost?.Invoke(await session.Closed.ConfigureAwait(false));
            try
            {
                await connection.ReconnectAsync(session, stopping).ConfigureAwait(false);
            }
            catch (OperationCanceledException) when (stopping.IsCancellationRequested)
            {
                return Result();
            }
        }

        ReceiveResult Result() => Progress with { Reconnects = connection.Reconnects - reconnectsBefore };
    }

    /// <summary>What the run has done so far (its reconnections not counted until it returns).</summary>
    public ReceiveResult Progress =>
        new(Volatile.Read(ref _handled), Volatile.Read(ref _deadLettered), Volatile.Read(ref _duplicates), Volatile.Read(ref _rejected), 0);

    private async Task OnDeliveryAsync(IChannel channel, BasicDeliverEventArgs delivery, int? count, TaskCompletionSource done, TaskCompletionSource drained)
    {
        // Stopping: neither handled nor acknowledged, so the broker requeues it when the channel closes.
        if (done.Task.IsCompleted) return;
        if (count is not null && Interlocked.Increment(ref _taken) > count)
        {
            // Past the count while others are still handled (--concurrency above 1): one of them may turn
            // out a duplicate and give its place back, and the delivery meant to fill it must not queue
            // behind this one in the prefetch window, so this one goes back to the queue at once.
            Interlocked.Decrement(ref _taken);
            await RequeueAsync(channel, delivery.DeliveryTag).ConfigureAwait(false);
            return;
        }
        Interlocked.Increment(ref _inFlight);
        try
        {
            var outcome = await HandleAsync(channel, delivery).ConfigureAwait(false);
            var settled = outcome switch
            {
                ReceiveOutcome.Handled => Interlocked.Increment(ref _handled) + Volatile.Read(ref _deadLettered),
                ReceiveOutcome.DeadLettered => Interlocked.Increment(ref _deadLettered) + Volatile.Read(ref _handled),
                _ => -1,
            };
            if (count is null) return;
            if (settled < 0) Interlocked.Decrement(ref _taken);
            else if (settled >= count) done.TrySetResult();
        }
        finally
        {
            if (Interlocked.Decrement(ref _inFlight) == 0 && Volatile.Read(ref _closing) == 1) drained.TrySetResult();
        }
    }

    private static async Task RequeueAsync(IChannel channel, ulong deliveryTag)
    {
        try
        {
            await channel.BasicRejectAsync(deliveryTag, requeue: true, CancellationToken.None).ConfigureAwait(false);
        }
        catch (Exception e) when (e is OperationInterruptedException or ObjectDisposedException)
        {
            // Lost: the broker requeues it anyway.
        }
    }

    // The outcome, or null when the pipeline failed and the delivery was rejected.
    private async Task<ReceiveOutcome?> HandleAsync(IChannel channel, BasicDeliverEventArgs delivery)
    {
        // Not the stop token: a delivery being handled when the stop comes finishes and is acknowledged.
        // No message id: "", which no duplicate check matches (delivery tags repeat across channels).
        var context = new TransportReceiveContext(
            delivery.BasicProperties.MessageId ?? "",
            FieldTables.ToHeaders(delivery.BasicProperties.Headers),
            delivery.Body,
            CancellationToken.None);
        var failed = false;
        try
        {
            try
            {
                await pipeline.Invoke(context).ConfigureAwait(false);
            }
#pragma warning disable CA1031 // A failing message must not stop the consumer; it is rejected and reported.
            catch (Exception e)
#pragma warning restore CA1031
            {
                failed = true;
                rejected(context.MessageId, e);
                Interlocked.Increment(ref _rejected);
                await channel.BasicRejectAsync(delivery.DeliveryTag, requeue: false, CancellationToken.None).ConfigureAwait(false);
                return null;
            }
            if (context.Outcome == ReceiveOutcome.Duplicate) Interlocked.Increment(ref _duplicates);
            await channel.BasicAckAsync(delivery.DeliveryTag, multiple: false, CancellationToken.None).ConfigureAwait(false);
        }
        catch (Exception e) when (e is OperationInterruptedException or ObjectDisposedException)
        {
            // The connection went while this delivery was handled: it is redelivered on the next one, and
            // a handled message then meets the duplicate check; a rejected one is simply tried again.
            if (failed) return null;
        }
        return context.Outcome;
    }
}
