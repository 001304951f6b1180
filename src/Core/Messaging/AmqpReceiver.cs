using Prewire.Amqp;
using Prewire.Messaging.Internal;
using Prewire.Pipeline;

namespace Prewire.Messaging;

/// <summary>
/// Consumes a queue with Prewire's own <see cref="AmqpConsumer"/> on the session's connection (up to
/// <see cref="BrokerSessionOptions.ConsumerConcurrency"/> deliveries handled at once); the policy is
/// <see cref="BrokerReceiver{TDelivery}"/>'s. Bodies reach the pipeline where the socket put them.
/// </summary>
public sealed class AmqpReceiver(BrokerConnection connection, Pipeline<TransportReceiveContext> pipeline, Action<string, Exception> rejected)
    : BrokerReceiver<AmqpDelivery>(connection, pipeline, rejected)
{
    private readonly DeliveryHeaderReader _headers = new();

    /// <inheritdoc />
    protected override async Task<object?> StartAsync(BrokerSession session, ushort prefetch)
    {
        var options = new AmqpConsumerOptions { Queue = session.Options.Queue, Prefetch = prefetch, Concurrency = Math.Max(1, (int)session.Options.ConsumerConcurrency), AutoSettle = false };
        try
        {
            return await AmqpConsumer.StartAsync(AmqpSession.Of(session).Connection, options, Handle, CancellationToken.None).ConfigureAwait(false);
        }
        catch (Exception e) when (e is AmqpException or IOException or ObjectDisposedException)
        {
            // Lost meanwhile: the session says why.
            return null;
        }
    }

    /// <inheritdoc />
    protected override Task CompletionOf(object consumer) => ((AmqpConsumer)consumer).Completion;

    /// <inheritdoc />
    protected override Task StopAsync(BrokerSession session, object consumer) =>
        ((AmqpConsumer)consumer).StopAsync(DrainTimeout);

    // Settled by the receiver's policy, never by the handler's return: one the policy leaves unsettled
    // (taken while stopping) is requeued by the broker when the channel closes.
    private ValueTask Handle(AmqpDelivery delivery) => OnDeliveryAsync(delivery);

    /// <inheritdoc />
    protected override ValueTask AckAsync(AmqpDelivery delivery)
    {
        delivery.Ack();
        return ValueTask.CompletedTask;
    }

    /// <inheritdoc />
    protected override ValueTask RejectAsync(AmqpDelivery delivery, bool requeue)
    {
        delivery.Reject(requeue);
        return ValueTask.CompletedTask;
    }

    /// <inheritdoc />
    /// <remarks>
    /// String headers are located in the delivery's property bytes, each value's string made when the
    /// pipeline asks for it (a view the delivery object keeps, valid while the pipeline runs, like the
    /// body); any other header type takes the full read. Malformed properties are read as none: the
    /// pipeline then finds the message malformed and dead-letters it.
    /// </remarks>
    protected override TransportReceiveContext Read(AmqpDelivery delivery)
    {
        var headers = delivery.ReceiverState as ReceivedHeaders ?? new ReceivedHeaders();
        delivery.ReceiverState = headers;
        bool read;
        string? messageId;
        Guid hexId;
        // Called on the read loop (before the pipeline's first await), one delivery at a time; the lock
        // only guards a consumer replaced after a reconnection while the old one's last delivery is read.
        lock (_headers) read = _headers.TryRead(delivery.PropertyBytes, headers, out messageId, out hexId);
        if (read) return messageId is null ? TransportReceiveContext.Rent(hexId, headers, delivery.Body) : TransportReceiveContext.Rent(messageId, headers, delivery.Body);
        try
        {
            return TransportReceiveContext.Rent(delivery.Properties.MessageId ?? "", ToHeaders(delivery.Properties.Headers), delivery.Body);
        }
        catch (InvalidDataException)
        {
            headers.Reset(default);
            return TransportReceiveContext.Rent("", headers, delivery.Body);
        }
    }
}
