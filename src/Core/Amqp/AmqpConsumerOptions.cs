namespace Prewire.Amqp;

/// <summary>Options of an <see cref="AmqpConsumer"/>.</summary>
public sealed class AmqpConsumerOptions
{
    /// <summary>The queue to consume.</summary>
    public required string Queue { get; set; }

    /// <summary>
    /// Deliveries the broker may send ahead of their settlements (basic.qos prefetch-count, per
    /// consumer); 0 for no limit. The consumer holds at most this many bodies at once.
    /// </summary>
    /// <remarks>Defaults to 100.</remarks>
    public ushort Prefetch { get; set; } = 100;

    /// <summary>Deliveries handled at once; the rest wait in arrival order. 1 handles them one at a time, in queue order.</summary>
    /// <remarks>Defaults to 1.</remarks>
    public int Concurrency { get; set; } = 1;

    /// <summary>The consumer tag; empty for one the broker makes up.</summary>
    /// <remarks>Defaults to empty.</remarks>
    public string ConsumerTag { get; set; } = "";

    /// <summary>
    /// A handler that returns without settling its delivery acknowledges it, one that throws rejects it
    /// without requeue. Off, a delivery its handler left unsettled stays unacknowledged until the channel
    /// closes, and the broker then requeues it (a receiver that settles by a policy of its own).
    /// </summary>
    /// <remarks>Defaults to <see langword="true"/>.</remarks>
    public bool AutoSettle { get; set; } = true;

    /// <summary>
    /// Consecutive in-order acks go out as one <c>basic.ack</c> with <c>multiple</c> for the last of them.
    /// Off, each ack is a frame of its own, as most clients write them: for a tool that counts acks frame
    /// by frame, and for measuring what coalescing saves (benchmarks/consume-memory.sh).
    /// </summary>
    /// <remarks>Defaults to <see langword="true"/>.</remarks>
    public bool CoalesceAcks { get; set; } = true;

    /// <summary>The only consumer of the queue (basic.consume exclusive): refused while another consumes it.</summary>
    /// <remarks>Defaults to <see langword="false"/>.</remarks>
    public bool Exclusive { get; set; }
}
