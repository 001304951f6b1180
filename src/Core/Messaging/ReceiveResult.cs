namespace Prewire.Messaging;

/// <summary>What a <see cref="BrokerReceiver{TDelivery}"/> run did with the deliveries it took.</summary>
/// <remarks>Counts are 64-bit: a worker consuming 10,000 messages a second passes 2^31 in under three days.</remarks>
/// <param name="Handled">Handled and acknowledged.</param>
/// <param name="DeadLettered">Moved to the dead-letter queue, then acknowledged.</param>
/// <param name="Duplicates">Redeliveries of messages handled already: acknowledged, not handled again.</param>
/// <param name="Rejected">The pipeline failed: rejected without requeue (the broker dead-letters them).</param>
/// <param name="Reconnects">Times the connection was lost and a new one took over.</param>
public readonly record struct ReceiveResult(long Handled, long DeadLettered, long Duplicates, long Rejected, int Reconnects)
{
    /// <summary>The deliveries that count toward the requested number: handled or dead-lettered.</summary>
    public long Settled => Handled + DeadLettered;
}
