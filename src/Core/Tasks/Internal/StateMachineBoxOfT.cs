using System.Runtime.CompilerServices;

namespace Prewire.Tasks.Internal;

/// <summary>A box for one async method's state machine type; each type has its own pool.</summary>
internal sealed class StateMachineBox<TStateMachine> : StateMachineBox
    where TStateMachine : IAsyncStateMachine
{
    private static readonly ContextCallback _runInContext = static box => ((StateMachineBox<TStateMachine>)box!).StateMachine!.MoveNext();

    private ExecutionContext? _context;

    private StateMachineBox() => MoveNextAction = MoveNext;

    public TStateMachine? StateMachine;

    /// <summary>What the awaited operation calls when it completes; made once per box.</summary>
    public Action MoveNextAction { get; }

    public static StateMachineBox<TStateMachine> Rent() => ObjectPool<StateMachineBox<TStateMachine>>.TryRent() ?? new();

    /// <summary>First suspension: the state machine (its builder already pointing here) moves in.</summary>
    public StateMachineBox<TStateMachine> Holding(ref TStateMachine stateMachine)
    {
        StateMachine = stateMachine;
        return Resuming();
    }

    // Capture returns the thread's current context object (no copy): the next step runs in it, as the
    // runtime's builders do.
    public StateMachineBox<TStateMachine> Resuming()
    {
        _context = ExecutionContext.Capture();
        return this;
    }

    private void MoveNext()
    {
        if (_context is { } context) ExecutionContext.Run(context, _runInContext, this);
        else StateMachine!.MoveNext();
    }

    protected override void Recycle()
    {
        StateMachine = default;
        _context = null;
        ObjectPool<StateMachineBox<TStateMachine>>.Return(this);
    }
}
