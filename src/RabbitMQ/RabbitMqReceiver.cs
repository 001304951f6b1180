using Prewire.Messaging;
using Prewire.Pipeline;
using Prewire.RabbitMQ.Internal;
using RabbitMQ.Client;
using RabbitMQ.Client.Events;

namespace Prewire.RabbitMQ;

/// <summary>
/// Consumes a queue with RabbitMQ.Client and runs each delivery through the incoming pipeline.
/// A delivery is acknowledged only after the pipeline completed; one that fails is rejected without
/// requeue (and dead-lettered where the queue says so), so nothing acknowledged was left unprocessed.
/// </summary>
public sealed class RabbitMqReceiver(BrokerSession session, Pipeline<TransportReceiveContext> pipeline, Action<string, Exception> rejected)
{
    /// <summary>How long a stop waits for the deliveries being handled to finish; those still running stay unacknowledged and are redelivered.</summary>
    /// <remarks>Defaults to 4 seconds: within the 5 s a container runtime gives before SIGKILL.</remarks>
    public TimeSpan DrainTimeout { get; init; } = TimeSpan.FromSeconds(4);

    /// <summary>
    /// Handles and acknowledges <paramref name="count"/> deliveries, or fewer when
    /// <paramref name="stopping"/> is cancelled first: then it takes no more, waits for those being
    /// handled (up to <see cref="DrainTimeout"/>) and returns. Returns how many were acknowledged.
    /// </summary>
    /// <param name="count">Deliveries to acknowledge; more are never handled, they stay in the queue.</param>
    /// <param name="prefetch">Unacknowledged deliveries the broker may send ahead (AMQP basic.qos); 0 for no limit.</param>
    /// <param name="stopping">Stops taking deliveries; the ones being handled still finish.</param>
    public async Task<int> ReceiveAsync(int count, ushort prefetch, CancellationToken stopping)
    {
        ArgumentNullException.ThrowIfNull(session);
        var channel = session.Channel;
        // Without a limit the broker pushes the whole queue to this channel; with a count, never more than it.
        // Not cancelled by the stop: a stop that comes this early still ends in a normal return (0 handled).
        await channel.BasicQosAsync(0, prefetch == 0 || prefetch > count ? (ushort)Math.Min(count, ushort.MaxValue) : prefetch, global: false, CancellationToken.None).ConfigureAwait(false);

        var (taken, acknowledged, inFlight, closing) = (0, 0, 0, 0);
        var done = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        var drained = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        var consumer = new AsyncEventingBasicConsumer(channel);
        consumer.ReceivedAsync += async (_, delivery) =>
        {
            // Past the count or stopping: neither handled nor acknowledged, so the broker requeues it when
            // the channel closes. A rejected delivery gives its place back; the client dispatches one
            // delivery at a time, so a delivery is only turned away once the count was acknowledged.
            if (stopping.IsCancellationRequested || Interlocked.Increment(ref taken) > count) return;
            Interlocked.Increment(ref inFlight);
            try
            {
                if (!await HandleAsync(channel, delivery).ConfigureAwait(false)) Interlocked.Decrement(ref taken);
                else if (Interlocked.Increment(ref acknowledged) >= count) done.TrySetResult();
            }
            finally
            {
                if (Interlocked.Decrement(ref inFlight) == 0 && Volatile.Read(ref closing) == 1) drained.TrySetResult();
            }
        };

        var tag = await channel.BasicConsumeAsync(session.Options.Queue, autoAck: false, consumer, CancellationToken.None).ConfigureAwait(false);
        using (stopping.Register(() => done.TrySetResult()))
        {
            await done.Task.ConfigureAwait(false);
        }
        Volatile.Write(ref closing, 1);
        await channel.BasicCancelAsync(tag, noWait: false, CancellationToken.None).ConfigureAwait(false);
        if (Volatile.Read(ref inFlight) == 0) drained.TrySetResult();
        await Task.WhenAny(drained.Task, Task.Delay(DrainTimeout, CancellationToken.None)).ConfigureAwait(false);
        return Volatile.Read(ref acknowledged);
    }

    // True when acknowledged, false when rejected.
    private async Task<bool> HandleAsync(IChannel channel, BasicDeliverEventArgs delivery)
    {
        // Not the stop token: a delivery being handled when the stop comes finishes and is acknowledged.
        var context = new TransportReceiveContext(
            delivery.BasicProperties.MessageId ?? $"delivery-{delivery.DeliveryTag}",
            FieldTables.ToHeaders(delivery.BasicProperties.Headers),
            delivery.Body,
            CancellationToken.None);
        try
        {
            await pipeline.Invoke(context).ConfigureAwait(false);
        }
#pragma warning disable CA1031 // A failing message must not stop the consumer; it is rejected and reported.
        catch (Exception e)
#pragma warning restore CA1031
        {
            rejected(context.MessageId, e);
            await channel.BasicRejectAsync(delivery.DeliveryTag, requeue: false, CancellationToken.None).ConfigureAwait(false);
            return false;
        }
        await channel.BasicAckAsync(delivery.DeliveryTag, multiple: false, CancellationToken.None).ConfigureAwait(false);
        return true;
    }
}
