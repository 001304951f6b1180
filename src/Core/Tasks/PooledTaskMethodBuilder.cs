using System.Runtime.CompilerServices;
using Prewire.Tasks.Internal;

namespace Prewire.Tasks;

/// <summary>
/// Builds an <c>async Task</c> method whose state machine, when it suspends, is kept in a pooled box
/// (<see cref="PooledValueTaskMethodBuilder"/>'s): what is made per suspended call is the bare
/// <see cref="System.Threading.Tasks.Task"/> the caller is handed (64 B), run when the method completes.
/// Apply it with <c>[AsyncMethodBuilder(typeof(PooledTaskMethodBuilder))]</c> where the caller takes a
/// <see cref="System.Threading.Tasks.Task"/> (an ASP.NET Core <c>RequestDelegate</c>).
/// </summary>
/// <remarks>
/// <para>
/// The runtime's builder also makes one object per suspended call, but that object is the task with
/// the whole state machine in it; <see cref="ValueTask.AsTask"/> over a pooled method makes a task
/// that also holds its source (80 B). A method that does not suspend returns
/// <see cref="Task.CompletedTask"/> and allocates nothing.
/// </para>
/// <para>
/// The task is made in the default execution context (one that is not would make it keep the context
/// in one more object) and completes on the thread that completed the method, as an awaited task's
/// continuation would, unless that thread is near the end of its stack (then on the thread pool). A
/// method that throws <see cref="OperationCanceledException"/> leaves its task faulted, not canceled;
/// awaiting it throws that exception either way.
/// </para>
/// </remarks>
public struct PooledTaskMethodBuilder
{
    private PooledValueTaskMethodBuilder _method;
    private Task? _task;

    /// <summary>Creates a builder (called by the compiler).</summary>
    public static PooledTaskMethodBuilder Create() => default;

    /// <summary>The method's task: <see cref="Task.CompletedTask"/> when it finished without suspending.</summary>
    public readonly Task Task => _task ?? (_method.Task is { IsCompletedSuccessfully: true } ? Task.CompletedTask : _method.Task.AsTask());

    /// <summary>Runs the state machine until its first suspension (called by the compiler).</summary>
    public readonly void Start<TStateMachine>(ref TStateMachine stateMachine)
        where TStateMachine : IAsyncStateMachine => _method.Start(ref stateMachine);

    /// <summary>Not used: the box is made on the first suspension (called by the compiler).</summary>
    public readonly void SetStateMachine(IAsyncStateMachine stateMachine) => _method.SetStateMachine(stateMachine);

    /// <summary>Completes the task (called by the compiler).</summary>
    public readonly void SetResult() => _method.SetResult();

    /// <summary>Fails the task (called by the compiler).</summary>
    public void SetException(Exception exception) => _method.SetException(exception);

    /// <summary>Suspends until <paramref name="awaiter"/> completes (called by the compiler).</summary>
    public void AwaitOnCompleted<TAwaiter, TStateMachine>(ref TAwaiter awaiter, ref TStateMachine stateMachine)
        where TAwaiter : INotifyCompletion
        where TStateMachine : IAsyncStateMachine =>
        awaiter.OnCompleted(BoxFor(ref stateMachine).MoveNextAction);

    /// <summary>Suspends until <paramref name="awaiter"/> completes (called by the compiler).</summary>
    public void AwaitUnsafeOnCompleted<TAwaiter, TStateMachine>(ref TAwaiter awaiter, ref TStateMachine stateMachine)
        where TAwaiter : ICriticalNotifyCompletion
        where TStateMachine : IAsyncStateMachine =>
        awaiter.UnsafeOnCompleted(BoxFor(ref stateMachine).MoveNextAction);

    // The first suspension runs on the caller's copy of the state machine, whose builder is the one the
    // caller reads Task from: the task is kept there. Made before the awaiter is told, so it is there
    // before the method can complete.
    private StateMachineBox<TStateMachine> BoxFor<TStateMachine>(ref TStateMachine stateMachine)
        where TStateMachine : IAsyncStateMachine
    {
        var first = !_method.HasSuspended;
        var box = _method.BoxFor(ref stateMachine);
        if (first) _task = box.TaskForThisUse();
        return box;
    }
}
