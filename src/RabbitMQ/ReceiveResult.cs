namespace Prewire.RabbitMQ;

/// <summary>What a <see cref="RabbitMqReceiver"/> run did with the deliveries it took.</summary>
/// <param name="Handled">Handled and acknowledged.</param>
/// <param name="DeadLettered">Moved to the dead-letter queue, then acknowledged.</param>
/// <param name="Duplicates">Redeliveries of messages handled already: acknowledged, not handled again.</param>
/// <param name="Rejected">The pipeline failed: rejected without requeue (the broker dead-letters them).</param>
/// <param name="Reconnects">Times the connection was lost and a new one took over.</param>
public readonly record struct ReceiveResult(int Handled, int DeadLettered, int Duplicates, int Rejected, int Reconnects)
{
    /// <summary>The deliveries that count toward the requested number: handled or dead-lettered.</summary>
    public int Settled => Handled + DeadLettered;
}
