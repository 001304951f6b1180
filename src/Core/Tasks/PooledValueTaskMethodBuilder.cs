using System.Runtime.CompilerServices;
using Prewire.Tasks.Internal;

namespace Prewire.Tasks;

/// <summary>
/// Builds an <c>async ValueTask</c> method whose state machine, when it suspends, is kept in a box
/// taken from a pool and given back once its result was awaited: the method allocates nothing in
/// steady state, suspended or not. Apply it with
/// <c>[AsyncMethodBuilder(typeof(PooledValueTaskMethodBuilder))]</c>.
/// </summary>
/// <remarks>
/// <para>
/// Unlike the runtime's <see cref="PoolingAsyncValueTaskMethodBuilder"/>, whose cache holds one box
/// per thread and one per core, each method's pool holds many (64, or 16 per core): its boxes are
/// returned on whichever thread completes them (an AMQP read loop completing a burst of confirms),
/// and rented on others (Kestrel's request threads), so with more operations in flight than the
/// runtime caches, most of its rents allocated (measured: ~190 B per HTTP request on the publish).
/// </para>
/// <para>
/// The rules of a pooled <see cref="ValueTask"/> apply: await it once, or call <see cref="ValueTask.AsTask"/> once.
/// Execution context flows across awaits as in any async method.
/// </para>
/// </remarks>
public struct PooledValueTaskMethodBuilder
{
    private StateMachineBox? _box;
    private Exception? _syncException;

    /// <summary>Creates a builder (called by the compiler).</summary>
    public static PooledValueTaskMethodBuilder Create() => default;

    /// <summary>The method's task: completed when it finished without suspending, else backed by its box.</summary>
    public readonly ValueTask Task => _box is { } box
        ? new ValueTask(box, box.Version)
        : _syncException is null ? default : ValueTask.FromException(_syncException);

#pragma warning disable CA1822 // The builder pattern: the compiler calls these on the instance.
    /// <summary>Runs the state machine until its first suspension (called by the compiler).</summary>
    public readonly void Start<TStateMachine>(ref TStateMachine stateMachine)
        where TStateMachine : IAsyncStateMachine =>
        // The runtime's start: saves and restores the execution and synchronization contexts around the first step.
        AsyncTaskMethodBuilder.Create().Start(ref stateMachine);

    /// <summary>Not used: the box is made on the first suspension (called by the compiler).</summary>
    public readonly void SetStateMachine(IAsyncStateMachine stateMachine)
    {
    }
#pragma warning restore CA1822

    /// <summary>Completes the task (called by the compiler).</summary>
    public readonly void SetResult() => _box?.SetResult();

    /// <summary>Fails the task (called by the compiler).</summary>
    public void SetException(Exception exception)
    {
        if (_box is { } box) box.SetException(exception);
        else _syncException = exception;
    }

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

    /// <summary>Whether the method has suspended (<see cref="PooledTaskMethodBuilder"/> makes its task on the first suspension).</summary>
    internal readonly bool HasSuspended => _box is not null;

    internal StateMachineBox<TStateMachine> BoxFor<TStateMachine>(ref TStateMachine stateMachine)
        where TStateMachine : IAsyncStateMachine
    {
        if (_box is StateMachineBox<TStateMachine> box) return box.Resuming();
        // First suspension: this builder is the one inside the caller's copy of the state machine. It
        // learns its box before the state machine is copied into it, so both copies point at the box.
        box = StateMachineBox<TStateMachine>.Rent();
        _box = box;
        return box.Holding(ref stateMachine);
    }
}
