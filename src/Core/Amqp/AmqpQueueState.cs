namespace Prewire.Amqp;

/// <summary>A queue as the broker reported it in queue.declare-ok: its name (the broker's, for a name left empty), messages ready and consumers.</summary>
/// <param name="Queue">The queue's name.</param>
/// <param name="MessageCount">Messages ready for delivery (not those delivered and unacknowledged).</param>
/// <param name="ConsumerCount">Active consumers.</param>
public readonly record struct AmqpQueueState(string Queue, uint MessageCount, uint ConsumerCount);
