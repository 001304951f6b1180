namespace Prewire.Messaging;

/// <summary>The kind of queue a <see cref="BrokerSession"/> declares.</summary>
public enum BrokerQueueType
{
    /// <summary>Replicated (Raft) on every node of a cluster: a confirmed message survives losing a minority of nodes.</summary>
    Quorum,

    /// <summary>One node's queue: lighter, but what it holds is gone with that node.</summary>
    Classic,
}
