using System.Buffers;
using Prewire.Amqp;
using Prewire.Messaging;
using Prewire.Pipeline;
using RabbitMQ.Client;
using RabbitMQ.Client.Events;
using RabbitMQ.Client.Exceptions;

namespace Prewire.RabbitMQ;

/// <summary>
/// Consumes a queue with RabbitMQ.Client on the session's channel (its consumer dispatch concurrency
/// is <see cref="BrokerSessionOptions.ConsumerConcurrency"/>); the policy is <see cref="BrokerReceiver{TDelivery}"/>'s.
/// </summary>
public sealed class RabbitMqReceiver(BrokerConnection connection, Pipeline<TransportReceiveContext> pipeline, Action<string, Exception> rejected)
    : BrokerReceiver<(IChannel Channel, BasicDeliverEventArgs Delivery)>(connection, pipeline, rejected)
{
    /// <inheritdoc />
    protected override async Task<object?> StartAsync(BrokerSession session, ushort prefetch)
    {
        var channel = RabbitMqSession.Of(session).Channel;
        var consumer = new AsyncEventingBasicConsumer(channel);
        consumer.ReceivedAsync += (_, delivery) => OnDeliveryAsync((channel, delivery)).AsTask();
        var ended = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        // The broker's basic.cancel (its queue deleted) unregisters the consumer; so does our own cancel,
        // after which nobody waits for this any more.
        consumer.UnregisteredAsync += (_, _) =>
        {
            ended.TrySetException(new AmqpException(AmqpExceptionKind.ConsumerCancelled, $"RabbitMQ at {session.Uri} cancelled the consumer of {session.Options.Queue}: the queue was deleted, or its node left the cluster", null));
            // Seen, so our own cancel (when nobody waits any more) leaves no unobserved exception.
            _ = ended.Task.Exception;
            return Task.CompletedTask;
        };
        try
        {
            await channel.BasicQosAsync(0, prefetch, global: false, CancellationToken.None).ConfigureAwait(false);
            var tag = await channel.BasicConsumeAsync(session.Options.Queue, autoAck: false, consumer, CancellationToken.None).ConfigureAwait(false);
            return new Consumer(tag, ended.Task);
        }
        catch (OperationInterruptedException)
        {
            // The channel closed: the session says why.
            return null;
        }
    }

    /// <inheritdoc />
    protected override Task CompletionOf(object consumer) => ((Consumer)consumer).Ended;

    /// <inheritdoc />
    protected override async Task StopAsync(BrokerSession session, object consumer)
    {
        var channel = RabbitMqSession.Of(session).Channel;
        if (!channel.IsOpen) return;
        try
        {
            await channel.BasicCancelAsync(((Consumer)consumer).Tag, noWait: false, CancellationToken.None).ConfigureAwait(false);
        }
        catch (OperationInterruptedException)
        {
            // Lost as we stop: whatever was not acknowledged is redelivered.
        }
    }

    /// <inheritdoc />
    protected override async ValueTask AckAsync((IChannel Channel, BasicDeliverEventArgs Delivery) delivery)
    {
        try
        {
            await delivery.Channel.BasicAckAsync(delivery.Delivery.DeliveryTag, multiple: false, CancellationToken.None).ConfigureAwait(false);
        }
        catch (OperationInterruptedException e)
        {
            throw new AmqpException(AmqpExceptionKind.ConnectionClosed, e.Message, e);
        }
    }

    /// <inheritdoc />
    protected override async ValueTask RejectAsync((IChannel Channel, BasicDeliverEventArgs Delivery) delivery, bool requeue)
    {
        try
        {
            await delivery.Channel.BasicRejectAsync(delivery.Delivery.DeliveryTag, requeue, CancellationToken.None).ConfigureAwait(false);
        }
        catch (OperationInterruptedException e)
        {
            throw new AmqpException(AmqpExceptionKind.ConnectionClosed, e.Message, e);
        }
    }

    /// <inheritdoc />
    protected override TransportReceiveContext Read((IChannel Channel, BasicDeliverEventArgs Delivery) delivery) =>
        TransportReceiveContext.Rent(delivery.Delivery.BasicProperties.MessageId ?? "", ToHeaders(delivery.Delivery.BasicProperties.Headers), new ReadOnlySequence<byte>(delivery.Delivery.Body));

    private sealed record Consumer(string Tag, Task Ended);
}
