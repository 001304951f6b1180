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
/// <param name="session">The session whose channel consumes.</param>
/// <param name="pipeline">The incoming pipeline each delivery runs through.</param>
/// <param name="rejected">Told the message id and the error of each delivery rejected.</param>
public sealed class RabbitMqReceiver(BrokerSession session, Pipeline<TransportReceiveContext> pipeline, Action<string, Exception> rejected)
{
    /// <summary>Consumes the session's queue until <paramref name="count"/> deliveries were acknowledged, or until cancelled.</summary>
    public async Task<int> ReceiveAsync(int count, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(session);
        var channel = session.Channel;
        var acknowledged = 0;
        var done = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        var consumer = new AsyncEventingBasicConsumer(channel);
        consumer.ReceivedAsync += async (_, delivery) =>
        {
            var context = new TransportReceiveContext(
                delivery.BasicProperties.MessageId ?? $"delivery-{delivery.DeliveryTag}",
                FieldTables.ToHeaders(delivery.BasicProperties.Headers),
                delivery.Body,
                cancellationToken);
            try
            {
                await pipeline.Invoke(context).ConfigureAwait(false);
            }
#pragma warning disable CA1031 // A failing message must not stop the consumer; it is rejected and logged.
            catch (Exception e)
#pragma warning restore CA1031
            {
                rejected(context.MessageId, e);
                await channel.BasicRejectAsync(delivery.DeliveryTag, requeue: false, CancellationToken.None).ConfigureAwait(false);
                return;
            }
            await channel.BasicAckAsync(delivery.DeliveryTag, multiple: false, CancellationToken.None).ConfigureAwait(false);
            if (Interlocked.Increment(ref acknowledged) >= count) done.TrySetResult();
        };

        var tag = await channel.BasicConsumeAsync(session.Options.Queue, autoAck: false, consumer, cancellationToken).ConfigureAwait(false);
        using (cancellationToken.Register(() => done.TrySetCanceled(cancellationToken)))
        {
            try
            {
                await done.Task.ConfigureAwait(false);
            }
            finally
            {
                await channel.BasicCancelAsync(tag, noWait: false, CancellationToken.None).ConfigureAwait(false);
            }
        }
        return Volatile.Read(ref acknowledged);
    }
}
