using Prewire.Transport;

namespace Prewire.Amqp;

/// <summary>Options of an <see cref="AmqpConnection"/>; a publisher's and a consumer's options add their own.</summary>
public class AmqpConnectionOptions
{
    /// <summary>The broker: <c>amqp://user:password@host:port/vhost</c>, or <c>amqps://</c> for TLS (<see cref="Tls"/>). The password is never logged or put in a message.</summary>
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
    /// How long <see cref="AmqpConnection.CloseAsync"/> may take in all: waiting for the writer's turn
    /// (a blocked broker can hold it), for the broker's close-ok, and for the socket to drain. Past it
    /// the socket is closed regardless.
    /// </summary>
    /// <remarks>Defaults to 5 seconds.</remarks>
    public TimeSpan CloseTimeout { get; set; } = TimeSpan.FromSeconds(5);

    /// <summary>How an <c>amqps://</c> <see cref="Uri"/> checks the broker and shows who this client is; unused for <c>amqp://</c>.</summary>
    /// <remarks>Defaults to the system's trust store and no client certificate.</remarks>
    public AmqpTlsOptions Tls { get; set; } = new();

    /// <summary>The socket and its pipes.</summary>
    /// <remarks>Defaults to <see cref="SocketConnectionOptions"/>' defaults (thread-pool scheduling, 1 MiB read and 256 KiB write thresholds).</remarks>
    public SocketConnectionOptions Transport { get; set; } = new();
}
