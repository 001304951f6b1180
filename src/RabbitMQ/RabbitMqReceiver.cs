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
        consumer.ReceivedAsync += (_, delivery) => OnDeliveryAsync((channel, delivery));
        try
        {
            await channel.BasicQosAsync(0, prefetch, global: false, CancellationToken.None).ConfigureAwait(false);
            return await channel.BasicConsumeAsync(session.Options.Queue, autoAck: false, consumer, CancellationToken.None).ConfigureAwait(false);
        }
        catch (OperationInterruptedException)
        {
            // The channel closed: the session says why.
            return null;
        }
    }

    /// <inheritdoc />
    protected override async Task StopAsync(BrokerSession session, object consumer)
    {
        var channel = RabbitMqSession.Of(session).Channel;
        if (!channel.IsOpen) return;
        try
        {
            await channel.BasicCancelAsync((string)consumer, noWait: false, CancellationToken.None).ConfigureAwait(false);
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
    protected override (string MessageId, IReadOnlyDictionary<string, string> Headers, ReadOnlySequence<byte> Body) Read((IChannel Channel, BasicDeliverEventArgs Delivery) delivery) =>
        (delivery.Delivery.BasicProperties.MessageId ?? "", ToHeaders(delivery.Delivery.BasicProperties.Headers), new ReadOnlySequence<byte>(delivery.Delivery.Body));
}
