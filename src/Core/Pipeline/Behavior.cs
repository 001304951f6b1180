using System.Diagnostics;
using System.Runtime.CompilerServices;
using Prewire.Tasks;

namespace Prewire.Pipeline;

/// <summary>
/// Convenience base for a behavior that keeps the context type: <c>next</c> takes no argument.
/// </summary>
/// <remarks>
/// The argument-free <c>next</c> is not a closure allocated per call: each behavior instance keeps a
/// spare continuation object (context, downstream delegate, and its own cached <see cref="Func{ValueTask}"/>)
/// and lends it to one invocation at a time. An invocation still pending when <c>Invoke</c> returns
/// keeps its continuation until it completes, awaited in a method whose state machine comes from a
/// pool, and then gives it back; concurrent invocations of the same instance get one continuation
/// each, up to a small number kept. The success path therefore allocates nothing once warm,
/// synchronous or not. The rules of <see cref="IBehavior{TIn, TOut}"/> apply: <c>next</c> may be
/// replayed, not called concurrently and not after the returned task completed (a bug: it throws
/// <see cref="InvalidOperationException"/> while the continuation is not lent again).
/// </remarks>
public abstract class Behavior<TContext> : IBehavior<TContext, TContext>
    where TContext : class, IBehaviorContext
{
    // Continuations given back while another is spare. Beyond this many, one is left to the GC and a
    // later invocation makes a new one.
    private const int KeptMax = 16;

    private Continuation? _spare;
    private Continuation?[]? _kept;

    /// <summary>Runs the step; <paramref name="next"/> continues with the same context.</summary>
    public abstract ValueTask Invoke(TContext context, Func<ValueTask> next);

    /// <inheritdoc />
    [StackTraceHidden]
    public ValueTask Invoke(TContext context, Func<TContext, ValueTask> next)
    {
        var continuation = Interlocked.Exchange(ref _spare, null) ?? TakeKept() ?? new Continuation();
        continuation.Lend(context, next);
        ValueTask task;
        try
        {
            task = Invoke(context, continuation.Next);
        }
        catch
        {
            Return(continuation);
            throw;
        }
        if (!task.IsCompleted) return ReturnWhenDone(task, continuation);
        Return(continuation);
        return task;
    }

    [AsyncMethodBuilder(typeof(PooledValueTaskMethodBuilder))]
    private async ValueTask ReturnWhenDone(ValueTask task, Continuation continuation)
    {
        try
        {
            await task.ConfigureAwait(false);
        }
        finally
        {
            Return(continuation);
        }
    }

    private void Return(Continuation continuation)
    {
        continuation.Reclaim();
        if (Interlocked.CompareExchange(ref _spare, continuation, null) is null) return;
        var kept = _kept ?? Interlocked.CompareExchange(ref _kept, new Continuation?[KeptMax], null) ?? _kept;
        for (var i = 0; i < kept.Length; i++)
        {
            if (Interlocked.CompareExchange(ref kept[i], continuation, null) is null) return;
        }
    }

    private Continuation? TakeKept()
    {
        if (_kept is not { } kept) return null;
        for (var i = 0; i < kept.Length; i++)
        {
            if (Volatile.Read(ref kept[i]) is { } found && Interlocked.CompareExchange(ref kept[i], null, found) == found) return found;
        }
        return null;
    }

    private sealed class Continuation
    {
        private TContext? _context;
        private Func<TContext, ValueTask>? _next;

        public Continuation() => Next = Invoke;

        public Func<ValueTask> Next { get; }

        public void Lend(TContext context, Func<TContext, ValueTask> next)
        {
            _context = context;
            _next = next;
        }

        public void Reclaim()
        {
            _context = null;
            _next = null;
        }

        [StackTraceHidden]
        private ValueTask Invoke()
        {
            var next = _next ?? throw new InvalidOperationException("next() was called after the behavior's task completed; call it only while Invoke runs.");
            return next(_context!);
        }
    }
}
