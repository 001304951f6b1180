using System.Diagnostics;

namespace Prewire.Pipeline;

/// <summary>
/// Convenience base for a behavior that keeps the context type: <c>next</c> takes no argument.
/// </summary>
/// <remarks>
/// The argument-free <c>next</c> is not a closure allocated per call: each behavior instance keeps a
/// spare continuation object (context, downstream delegate, and its own cached <see cref="Func{Task}"/>)
/// and lends it to one invocation at a time; concurrent invocations of the same instance get a fresh
/// one. The success path therefore allocates nothing once warm. The rules of
/// <see cref="IBehavior{TIn, TOut}"/> apply: <c>next</c> may be replayed, not called concurrently and
/// not after the returned task completed (it then throws <see cref="InvalidOperationException"/>).
/// </remarks>
public abstract class Behavior<TContext> : IBehavior<TContext, TContext>
    where TContext : class, IBehaviorContext
{
    private Continuation? _spare;

    /// <summary>Runs the step; <paramref name="next"/> continues with the same context.</summary>
    public abstract Task Invoke(TContext context, Func<Task> next);

    /// <inheritdoc />
    [StackTraceHidden]
    public Task Invoke(TContext context, Func<TContext, Task> next)
    {
        var continuation = Interlocked.Exchange(ref _spare, null) ?? new Continuation();
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
        if (task.IsCompleted)
        {
            Return(continuation);
            return task;
        }
        return ReturnWhenDone(task, continuation);
    }

    [StackTraceHidden]
    private async Task ReturnWhenDone(Task task, Continuation continuation)
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
        _spare = continuation;
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

        public void Reclaim()
        {
            _context = null;
            _next = null;
        }

        [StackTraceHidden]
        private Task Invoke()
        {
            var next = _next ?? throw new InvalidOperationException("next() was called after the behavior's task completed; call it only while Invoke runs.");
            return next(_context!);
        }
    }
}
