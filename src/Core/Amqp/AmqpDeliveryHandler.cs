namespace Prewire.Amqp;

/// <summary>
/// Handles one delivery of an <see cref="AmqpConsumer"/>. Runs on the connection's read loop until its
/// first await: keep the synchronous part short. Returning acknowledges the delivery unless the
/// handler settled it itself; throwing rejects it without requeue.
/// </summary>
/// <param name="delivery">The delivery, valid until the returned task completes.</param>
public delegate ValueTask AmqpDeliveryHandler(AmqpDelivery delivery);
