using Prewire.Transport;

namespace Prewire.Amqp;

/// <summary>Options of an <see cref="AmqpPublisher"/>.</summary>
public sealed class AmqpPublisherOptions
{
    /// <summary>The broker: <c>amqp://user:password@host:port/vhost</c> (no TLS). The password is never logged or put in a message.</summary>
    public required AmqpUri Uri { get; set; }

    /// <summary>Heartbeat interval asked for; the broker's may be shorter. Zero disables heartbeats.</summary>
    /// <remarks>Defaults to 60 seconds.</remarks>
    public TimeSpan RequestedHeartbeat { get; set; } = TimeSpan.FromSeconds(60);

    /// <summary>Largest frame asked for; 0 takes the broker's.</summary>
    /// <remarks>Defaults to 0.</remarks>
    public uint RequestedFrameMax { get; set; }

    /// <summary>The name the broker shows for this connection.</summary>
    /// <remarks>Defaults to <c>prewire</c>.</remarks>
    public string ClientName { get; set; } = "prewire";

    /// <summary>How long connecting and the handshake may take.</summary>
    /// <remarks>Defaults to 10 seconds.</remarks>
    public TimeSpan HandshakeTimeout { get; set; } = TimeSpan.FromSeconds(10);

    /// <summary>
    /// How long <see cref="AmqpPublisher.CloseAsync"/> may take in all: waiting for the writer's turn
    /// (a blocked broker can hold it), for the broker's close-ok, and for the socket to drain. Past it
    /// the socket is closed regardless.
    /// </summary>
    /// <remarks>Defaults to 5 seconds.</remarks>
    public TimeSpan CloseTimeout { get; set; } = TimeSpan.FromSeconds(5);

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

    /// <summary>The socket and its pipes.</summary>
    /// <remarks>Defaults to <see cref="SocketConnectionOptions"/>' defaults (thread-pool scheduling, 1 MiB read and 256 KiB write thresholds).</remarks>
    public SocketConnectionOptions Transport { get; set; } = new();
}
