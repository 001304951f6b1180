namespace Prewire.Messaging;

/// <summary>
/// What a session declares on each node it opens, described once for every client: the dead-letter
/// exchange (fanout) and its queue, bound; the queue, of <see cref="BrokerSessionOptions.QueueType"/>,
/// dead-lettering to that exchange (so rejected messages, and those past a quorum queue's delivery limit,
/// land with the consumer's own dead letters); and, given an exchange, that exchange (direct) with the
/// queue bound to it by the routing key. A client declares <see cref="Exchanges"/>, then
/// <see cref="Queues"/>, then <see cref="Bindings"/>, each in order; all of them durable, none auto-deleted.
/// </summary>
public sealed class BrokerTopology
{
    private BrokerTopology(IReadOnlyList<BrokerExchange> exchanges, IReadOnlyList<BrokerQueue> queues, IReadOnlyList<BrokerBinding> bindings)
    {
        Exchanges = exchanges;
        Queues = queues;
        Bindings = bindings;
    }

    /// <summary>The exchanges, declared first.</summary>
    public IReadOnlyList<BrokerExchange> Exchanges { get; }

    /// <summary>The queues, declared next, with their arguments.</summary>
    public IReadOnlyList<BrokerQueue> Queues { get; }

    /// <summary>The bindings, declared last.</summary>
    public IReadOnlyList<BrokerBinding> Bindings { get; }

    /// <summary>The topology of <paramref name="options"/>.</summary>
    public static BrokerTopology Of(BrokerSessionOptions options)
    {
        ArgumentNullException.ThrowIfNull(options);
        var type = options.QueueType == BrokerQueueType.Quorum ? "quorum" : "classic";
        List<BrokerExchange> exchanges = [new(options.DeadLetterExchange, "fanout")];
        List<BrokerQueue> queues =
        [
            new(options.DeadLetterQueue, new() { ["x-queue-type"] = type }),
            new(options.Queue, new() { ["x-queue-type"] = type, ["x-dead-letter-exchange"] = options.DeadLetterExchange }),
        ];
        List<BrokerBinding> bindings = [new(options.DeadLetterQueue, options.DeadLetterExchange, "")];
        if (options.Exchange.Length > 0)
        {
            exchanges.Add(new(options.Exchange, "direct"));
            bindings.Add(new(options.Queue, options.Exchange, options.RoutingKey));
        }
        return new BrokerTopology(exchanges, queues, bindings);
    }
}
