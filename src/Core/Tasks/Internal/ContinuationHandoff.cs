using System.Threading.Tasks.Sources;

namespace Prewire.Tasks.Internal;

/// <summary>
/// The one continuation of a pooled source, kept beside its <see cref="ManualResetValueTaskSourceCore{TResult}"/>
/// rather than in it, for awaiters that need no context (every await in this library).
/// </summary>
/// <remarks>
/// An awaiter finds the operation pending, then registers its continuation; when the completer finishes
/// in between, the core queues the continuation in a new work item, 32 B. On a busy host that is a few
/// messages in every few thousand, which a zero-byte test sees. Here one compare-and-swap decides: a
/// continuation handed before the completer closed is run by the completer after it completes the core,
/// as the core would have; one handed after is queued by the owner, a work item already.
/// </remarks>
internal struct ContinuationHandoff
{
    private const int Handed = 1, Closed = 2;

    private int _state;
    private Action<object?>? _continuation;
    private object? _continuationState;

    /// <summary>The awaiter's side: hands the continuation over, or has <paramref name="owner"/> run it from the pool.</summary>
    public void OnCompleted<T>(ref ManualResetValueTaskSourceCore<T> core, Action<object?> continuation, object? state, short token, ValueTaskSourceOnCompletedFlags flags, IThreadPoolWorkItem owner)
    {
        if (!Plain(flags))
        {
            core.OnCompleted(continuation, state, token, flags);
            return;
        }
        core.GetStatus(token); // Throws for a token of another use.
        if ((Volatile.Read(ref _state) & Handed) != 0) ThrowAwaitedTwice(); // Before the first's continuation is overwritten.
        (_continuation, _continuationState) = (continuation, state);
        switch (Interlocked.CompareExchange(ref _state, Handed, 0))
        {
            case 0:
                return;
            case Closed:
                // The completer closes just before it completes the core: a few instructions to wait at most.
                var spin = default(SpinWait);
                while (core.GetStatus(token) == ValueTaskSourceStatus.Pending) spin.SpinOnce();
                ThreadPool.UnsafeQueueUserWorkItem(owner, preferLocal: true);
                return;
            default:
                ThrowAwaitedTwice();
                return;
        }
    }

    /// <summary>
    /// The completer's side: completes the core, then runs a continuation handed before, inline, or
    /// from the pool as <paramref name="queue"/> (whose work item calls <see cref="RunHanded"/>) when given.
    /// </summary>
    public void Complete<T>(ref ManualResetValueTaskSourceCore<T> core, T result, Exception? exception, IThreadPoolWorkItem? queue = null)
    {
        var handed = (Interlocked.Or(ref _state, Closed) & Handed) != 0;
        if (exception is null) core.SetResult(result);
        else core.SetException(exception);
        if (!handed) return;
        if (queue is null) RunHanded();
        else ThreadPool.UnsafeQueueUserWorkItem(queue, preferLocal: true);
    }

    /// <summary>Runs the continuation handed over; the owner's work item calls it.</summary>
    public void RunHanded()
    {
        var (continuation, state) = (_continuation!, _continuationState);
        (_continuation, _continuationState) = (null, null);
        continuation(state);
    }

    /// <summary>For the next use, once the result was read.</summary>
    public void Reset() => _state = 0;

    private static void ThrowAwaitedTwice() => throw new InvalidOperationException("A pooled ValueTask can be awaited exactly once.");

    // What the core would capture: an execution context to flow, or a scheduling context in place.
    private static bool Plain(ValueTaskSourceOnCompletedFlags flags) =>
        (flags & ValueTaskSourceOnCompletedFlags.FlowExecutionContext) == 0 &&
        ((flags & ValueTaskSourceOnCompletedFlags.UseSchedulingContext) == 0 ||
            ((SynchronizationContext.Current is not { } context || context.GetType() == typeof(SynchronizationContext)) && TaskScheduler.Current == TaskScheduler.Default));
}
