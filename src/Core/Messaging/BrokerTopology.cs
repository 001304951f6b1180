namespace Prewire.Messaging;

/// <summary>
/// What a session declares on each node it opens, described once for every client: the dead-letter
/// exchange (fanout) and its queue, bound; the queue, of <see cref="BrokerSessionOptions.QueueType"/>,
/// dead-lettering to that exchange (so rejected messages, and those past a quorum queue's delivery limit,
/// land with the consumer's own dead letters); and, given an exchange, that exchange (direct) with the
/// queue bound to it by the routing key. Each client is an <see cref="IBrokerTopologyTarget"/>.
/// </summary>
/// <remarks>
/// Steps on a target rather than lists of declarations: a list of a type of ours is a generic
/// instantiation, type data every NativeAOT app rehydrates at start-up (12.7 KB and 61,000 instructions
/// to the Publisher's ready line, measured, for three such lists).
/// </remarks>
public static class BrokerTopology
{
    /// <summary>Declares the topology of <paramref name="options"/> on <paramref name="target"/>, in order.</summary>
    public static async Task DeclareAsync(BrokerSessionOptions options, IBrokerTopologyTarget target, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(options);
        ArgumentNullException.ThrowIfNull(target);
        var type = options.QueueType == BrokerQueueType.Quorum ? "quorum" : "classic";
        await target.DeclareExchangeAsync(options.DeadLetterExchange, "fanout", cancellationToken).ConfigureAwait(false);
        await target.DeclareQueueAsync(options.DeadLetterQueue, new() { ["x-queue-type"] = type }, cancellationToken).ConfigureAwait(false);
        await target.BindQueueAsync(options.DeadLetterQueue, options.DeadLetterExchange, "", cancellationToken).ConfigureAwait(false);
        await target.DeclareQueueAsync(options.Queue, new() { ["x-queue-type"] = type, ["x-dead-letter-exchange"] = options.DeadLetterExchange }, cancellationToken).ConfigureAwait(false);
        if (options.Exchange.Length == 0) return;
        await target.DeclareExchangeAsync(options.Exchange, "direct", cancellationToken).ConfigureAwait(false);
        await target.BindQueueAsync(options.Queue, options.Exchange, options.RoutingKey, cancellationToken).ConfigureAwait(false);
    }
}
