using System.Runtime.CompilerServices;
using System.Threading.Tasks.Sources;

namespace Prewire.Tasks.Internal;

/// <summary>
/// Where a suspended <see cref="PooledValueTaskMethodBuilder"/> or <see cref="PooledTaskMethodBuilder"/>
/// method lives, and what its <see cref="ValueTask"/> (or bare task) is backed by. Given back to its pool
/// when the result was read.
/// </summary>
internal abstract class StateMachineBox : IValueTaskSource, IThreadPoolWorkItem
{
    // PooledTaskMethodBuilder's task: its action reads the box's result (recycling the box), so it fails
    // as the method did; it is run by the box's one continuation.
    private static readonly Action<object?> _readResult = static state =>
    {
        var box = (StateMachineBox)state!;
        box.GetResult(box.Version);
    };

    private static readonly Action<object?> _run = static state => Run((Task)state!);

    // The default context, learnt once on a pool thread (which runs in it): there is no other way to
    // name it. Until it is known, tasks are made in the current context, larger but as correct.
    private static ExecutionContext? _defaultContext;
    private static int _learningDefaultContext;

    private ManualResetValueTaskSourceCore<bool> _core;
    private ContinuationHandoff _handoff;

    public short Version => _core.Version;

    public void SetResult() => _handoff.Complete(ref _core, true, null);

    public void SetException(Exception exception) => _handoff.Complete(ref _core, false, exception);

    public void GetResult(short token)
    {
        try
        {
            _core.GetResult(token);
        }
        finally
        {
            _core.Reset();
            _handoff.Reset();
            Recycle();
        }
    }

    public ValueTaskSourceStatus GetStatus(short token) => _core.GetStatus(token);

    public void OnCompleted(Action<object?> continuation, object? state, short token, ValueTaskSourceOnCompletedFlags flags) =>
        _handoff.OnCompleted(ref _core, continuation, state, token, flags, this);

    // Queued only to run a continuation handed over after the box completed.
    void IThreadPoolWorkItem.Execute() => _handoff.RunHanded();

    /// <summary>A bare task for this use of the box, completed when the box is; nothing else may await the box.</summary>
    public Task TaskForThisUse()
    {
        var task = NewTask();
        _core.OnCompleted(_run, task, _core.Version, ValueTaskSourceOnCompletedFlags.None);
        return task;
    }

    // A task made in a context other than the default one keeps it in one more object (80 B), and this
    // task's action needs no context: it is made with the default one in place (a request in Kestrel
    // runs in its connection's logging scope, which is not the default context).
    private Task NewTask()
    {
        var current = ExecutionContext.Capture();
        var clean = Volatile.Read(ref _defaultContext);
        if (clean is null && Interlocked.Exchange(ref _learningDefaultContext, 1) == 0)
            ThreadPool.UnsafeQueueUserWorkItem(static _ => Volatile.Write(ref _defaultContext, ExecutionContext.Capture()), null);
        if (current is null || clean is null || ReferenceEquals(current, clean)) return new Task(_readResult, this);
        ExecutionContext.Restore(clean);
        try
        {
            return new Task(_readResult, this);
        }
        finally
        {
            ExecutionContext.Restore(current);
        }
    }

    private static void Run(Task task)
    {
        // Inline, as an awaited task's completion runs its awaiter. RunSynchronously waits for the pool
        // whenever the scheduler declines to inline, which it does near the end of the stack: queue then.
        if (RuntimeHelpers.TryEnsureSufficientExecutionStack()) task.RunSynchronously(TaskScheduler.Default);
        else task.Start(TaskScheduler.Default);
    }

    protected abstract void Recycle();
}
