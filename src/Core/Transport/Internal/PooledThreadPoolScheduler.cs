using System.IO.Pipelines;

namespace Prewire.Transport.Internal;

/// <summary>
/// Runs each pipe continuation on the thread pool as <see cref="PipeScheduler.ThreadPool"/> does, one
/// work item each, but the work item comes from a pool: the runtime's is a new 40 B object per
/// continuation (a pending HTTP request's publish woke the connection's pipes about one time in five).
/// Queued without the scheduling thread's execution context, as Kestrel's own I/O queue does: the pipe
/// flows a context itself to an awaiter that asked for one, and an async method restores its own.
/// </summary>
internal sealed partial class PooledThreadPoolScheduler : PipeScheduler
{
    public static PooledThreadPoolScheduler Instance { get; } = new();

    private PooledThreadPoolScheduler()
    {
    }

    public override void Schedule(Action<object?> action, object? state) =>
        System.Threading.ThreadPool.UnsafeQueueUserWorkItem(WorkItem.Rent(action, state), preferLocal: false);
}
