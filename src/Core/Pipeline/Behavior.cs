using System.Diagnostics;

namespace Prewire.Pipeline;

/// <summary>
/// Convenience base for a behavior that keeps the context type: <c>next</c> takes no argument.
/// </summary>
/// <remarks>
/// The argument-free <c>next</c> is not a closure allocated per call: each behavior instance keeps a
/// spare continuation object (context, downstream delegate, and its own cached <see cref="Func{Task}"/>)
/// and lends it to one invocation at a time. An invocation still pending when <c>Invoke</c> returns
/// parks its continuation with its task, and a later invocation takes it back once that task completed,
/// so an asynchronous pipeline needs no wrapper task per message either; concurrent invocations of the
/// same instance get one continuation each, up to a small number kept. The success path therefore
/// allocates nothing once warm, synchronous or not. The rules of
/// <see cref="IBehavior{TIn, TOut}"/> apply: <c>next</c> may be replayed, not called concurrently and
/// not after the returned task completed (a bug: it throws <see cref="InvalidOperationException"/> while
/// the continuation is not lent again; a parked one is reclaimed only when the next invocation takes it).
/// </remarks>
public abstract class Behavior<TContext> : IBehavior<TContext, TContext>
    where TContext : class, IBehaviorContext
{
    // Continuations lent to invocations that were still pending when Invoke returned. Beyond this many
    // in flight at once, a continuation is left to the GC and the next invocation makes a new one.
    private const int ParkedMax = 16;

    private Continuation? _spare;
    private Continuation?[]? _parked;
    private int _parkedCount;

    /// <summary>Runs the step; <paramref name="next"/> continues with the same context.</summary>
    public abstract Task Invoke(TContext context, Func<Task> next);

    /// <inheritdoc />
    [StackTraceHidden]
    public Task Invoke(TContext context, Func<TContext, Task> next)
    {
        var continuation = Interlocked.Exchange(ref _spare, null) ?? Unpark() ?? new Continuation();
        continuation.Lend(context, next);
        Task task;
        try
        {
            task = Invoke(context, continuation.Next);
        }
        catch
        {
            Return(continuation);
            throw;
        }
        if (task.IsCompleted) Return(continuation);
        else Park(continuation, task);
        return task;
    }

    private void Return(Continuation continuation)
    {
        continuation.Reclaim();
        _spare = continuation;
    }

    private void Park(Continuation continuation, Task pending)
    {
        continuation.Pending = pending;
        var parked = _parked ?? Interlocked.CompareExchange(ref _parked, new Continuation?[ParkedMax], null) ?? _parked;
        lock (parked)
        {
            for (var i = 0; i < parked.Length; i++)
            {
                if (parked[i] is null)
                {
                    parked[i] = continuation;
                    _parkedCount++;
                    return;
                }
            }
        }
    }

    // A parked continuation is free again once its invocation's task completed: next may not be called after that.
    private Continuation? Unpark()
    {
        if (Volatile.Read(ref _parkedCount) == 0) return null;
        var parked = _parked!;
        lock (parked)
        {
            for (var i = 0; i < parked.Length; i++)
            {
                if (parked[i] is { Pending.IsCompleted: true } done)
                {
                    parked[i] = null;
                    _parkedCount--;
                    done.Reclaim();
                    return done;
                }
            }
        }
        return null;
    }

    private sealed class Continuation
    {
        private TContext? _context;
        private Func<TContext, Task>? _next;

        public Continuation() => Next = Invoke;

        public Func<Task> Next { get; }

        public void Lend(TContext context, Func<TContext, Task> next)
        {
            _context = context;
            _next = next;
        }

        /// <summary>The invocation's task, while the continuation is parked.</summary>
        public Task? Pending { get; set; }

        public void Reclaim()
        {
            _context = null;
            _next = null;
            Pending = null;
        }

        [StackTraceHidden]
        private Task Invoke()
        {
            var next = _next ?? throw new InvalidOperationException("next() was called after the behavior's task completed; call it only while Invoke runs.");
            return next(_context!);
        }
    }
}
