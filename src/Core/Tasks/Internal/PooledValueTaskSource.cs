using System.Threading.Tasks.Sources;

namespace Prewire.Tasks.Internal;

/// <summary>
/// The pooled backing object of <see cref="PooledCompletion{T}"/>. Each use has a version; the
/// completion state and the version live in one integer, so a completer holding an old version can
/// never complete a later use, and an await with an old version fails instead of reading a later
/// result. Returned to the pool when its result is read (the await), never before.
/// </summary>
/// <remarks>
/// Asynchronous continuations are its own hop, not the core's: the core queues a continuation to the
/// thread pool in a new work item unless it is a runtime async method's (which the pool takes as it
/// is), so a <see cref="PooledValueTaskMethodBuilder"/> method awaiting it cost 32 B per completion.
/// This object queues itself instead and completes the core, inline, from the pool. The awaiter's
/// continuation goes through <see cref="ContinuationHandoff"/>, so a completion that overtakes the
/// await is queued as this object too.
/// </remarks>
internal sealed class PooledValueTaskSource<T> : IValueTaskSource<T>, IValueTaskSource, IThreadPoolWorkItem
{
    private ManualResetValueTaskSourceCore<T> _core;
    private ContinuationHandoff _handoff;
    private bool _completeOnThreadPool;
    private bool _completing;
    private T? _result;
    private Exception? _exception;

    // (version << 1) | completed. Changed only by CompareExchange (complete) and by Recycle.
    private int _state;
    private CancellationTokenRegistration _cancellation;

    public short Version => _core.Version;

    public static PooledValueTaskSource<T> Rent(bool runContinuationsAsynchronously)
    {
        var source = ObjectPool<PooledValueTaskSource<T>>.TryRent() ?? new PooledValueTaskSource<T>();
        source._completeOnThreadPool = runContinuationsAsynchronously;
        return source;
    }

    public void CancelWhen(short version, CancellationToken cancellationToken)
    {
        if (!cancellationToken.CanBeCanceled) return;
        _cancellation = cancellationToken.UnsafeRegister(
            static (state, token) =>
            {
                var (source, version) = ((PooledValueTaskSource<T>, short))state!;
                source.TrySetException(version, new OperationCanceledException(token));
            },
            (this, version));
    }

    public bool TrySetResult(short version, T result)
    {
        if (!TryClaim(version)) return false;
        Complete(result, null);
        return true;
    }

    public bool TrySetException(short version, Exception exception)
    {
        if (!TryClaim(version)) return false;
        Complete(default, exception);
        return true;
    }

    private void Complete(T? result, Exception? exception)
    {
        if (_completeOnThreadPool)
        {
            (_result, _exception, _completing) = (result, exception, true);
            ThreadPool.UnsafeQueueUserWorkItem(this, preferLocal: true);
        }
        else
        {
            _handoff.Complete(ref _core, result!, exception);
        }
    }

    // Queued to complete, or (only once completed) to run a continuation handed over after that.
    // Fields cleared first: completing runs the awaiter inline, which may recycle this object at once.
    void IThreadPoolWorkItem.Execute()
    {
        if (!_completing)
        {
            _handoff.RunHanded();
            return;
        }
        var (result, exception) = (_result, _exception);
        (_result, _exception, _completing) = (default, null, false);
        _handoff.Complete(ref _core, result!, exception);
    }

    public T GetResult(short token)
    {
        ThrowIfStale(token);
        try
        {
            return _core.GetResult(token);
        }
        finally
        {
            Recycle();
        }
    }

    void IValueTaskSource.GetResult(short token) => GetResult(token);

    public ValueTaskSourceStatus GetStatus(short token)
    {
        ThrowIfStale(token);
        return _core.GetStatus(token);
    }

    public void OnCompleted(Action<object?> continuation, object? state, short token, ValueTaskSourceOnCompletedFlags flags)
    {
        ThrowIfStale(token);
        _handoff.OnCompleted(ref _core, continuation, state, token, flags, this);
    }

    private bool TryClaim(short version)
    {
        var open = (ushort)version << 1;
        if (Interlocked.CompareExchange(ref _state, open | 1, open) != open) return false;
        // Completed: a cancellation callback has nothing left to do. Dispose (not Unregister) would
        // wait for a running callback, which may be this very call.
        _cancellation.Unregister();
        _cancellation = default;
        return true;
    }

    private void Recycle()
    {
        _core.Reset();
        _handoff.Reset();
        Volatile.Write(ref _state, (ushort)_core.Version << 1);
        ObjectPool<PooledValueTaskSource<T>>.Return(this);
    }

    private void ThrowIfStale(short token)
    {
        if (token != _core.Version)
        {
            throw new InvalidOperationException(
                "This pooled ValueTask was already awaited, or belongs to an earlier operation: a pooled ValueTask can be awaited exactly once. Await it once, or call AsTask() once to get a Task that can be awaited many times.");
        }
    }
}
