using Prewire.Amqp;

namespace Prewire.Messaging;

/// <summary>A receiver whichever client it consumes with (<see cref="BrokerReceiver{TDelivery}"/>): what an app runs and reports.</summary>
public abstract class BrokerReceiver
{
    /// <summary>How long a stop waits for the deliveries being handled to finish; those still running stay unacknowledged and are redelivered.</summary>
    /// <remarks>Defaults to 4 seconds: within the 5 s a container runtime gives before SIGKILL.</remarks>
    public TimeSpan DrainTimeout { get; init; } = TimeSpan.FromSeconds(4);

    /// <summary>Called when the connection was lost, before reconnecting.</summary>
    public Action<Exception>? ConnectionLost { get; set; }

    /// <summary>
    /// Called with <see langword="true"/> once the broker accepted the consumer (again after each
    /// reconnection), and with <see langword="false"/> when its channel is lost or the run stops.
    /// </summary>
    public Action<bool>? Consuming { get; set; }

    /// <summary>What the run has done so far (its reconnections not counted until it returns).</summary>
    public abstract ReceiveResult Progress { get; }

    /// <summary>
    /// Settles <paramref name="count"/> deliveries (<see cref="ReceiveResult.Settled"/>), or fewer when
    /// <paramref name="stopping"/> is cancelled first: then it takes no more, waits for those being
    /// handled (up to <see cref="DrainTimeout"/>) and returns. Without a count it consumes until stopped.
    /// </summary>
    /// <param name="count">Deliveries to settle, more are never handled and stay in the queue; <see langword="null"/> for every delivery until <paramref name="stopping"/>.</param>
    /// <param name="prefetch">Unacknowledged deliveries the broker may send ahead (AMQP basic.qos); 0 for no limit.</param>
    /// <param name="stopping">Stops taking deliveries; the ones being handled still finish.</param>
    /// <exception cref="AmqpException">The connection was lost and could not be replaced.</exception>
    public abstract Task<ReceiveResult> ReceiveAsync(int? count, ushort prefetch, CancellationToken stopping);
}
