namespace Prewire.Amqp;

/// <summary>Options of an <see cref="AmqpPublisher"/>: its connection's, and how it publishes on it.</summary>
public sealed class AmqpPublisherOptions : AmqpConnectionOptions
{
    /// <summary>
    /// Publisher confirms: each publish completes when the broker acked it. Without them a publish
    /// completes once its frames are written to the pipe and flushed, by it or by the next publisher
    /// in a burst (fire-and-forget: nothing tells a lost
    /// message from a delivered one).
    /// </summary>
    /// <remarks>Defaults to <see langword="true"/>.</remarks>
    public bool Confirms { get; set; } = true;

    /// <summary>
    /// Channels opened on the connection; publishes take them in turn, each tracking its own confirms.
    /// The broker runs every channel in a process of its own, so several channels let it take one
    /// connection's publishes on several cores. An error on any channel (a missing exchange, say)
    /// ends the publisher, as it does with one.
    /// </summary>
    /// <remarks>
    /// Defaults to 1. With more than one, publishes that follow one another may reach a queue in a
    /// different order (AMQP orders messages per channel); keep 1 where order matters.
    /// </remarks>
    public int Channels { get; set; } = 1;
}
