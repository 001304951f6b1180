using Prewire.Pipeline;

namespace Prewire.Benchmarks.Pipeline;

public sealed class BenchContext : BehaviorContext
{
    public int Steps { get; set; }
}

/// <summary>A plain behavior: counts and continues. Shared by both builders so only the engine differs.</summary>
public sealed class Step : IBehavior<BenchContext, BenchContext>
{
    public Task Invoke(BenchContext context, Func<BenchContext, Task> next)
    {
        context.Steps++;
        return next(context);
    }
}

/// <summary>Calls next three times, synchronously when downstream completes synchronously.</summary>
public sealed class Replay : IBehavior<BenchContext, BenchContext>
{
    public Task Invoke(BenchContext context, Func<BenchContext, Task> next)
    {
        for (var i = 0; i < 3; i++)
        {
            var task = next(context);
            if (!task.IsCompletedSuccessfully) return Slow(task, i, context, next);
        }
        return Task.CompletedTask;

        static async Task Slow(Task pending, int done, BenchContext context, Func<BenchContext, Task> next)
        {
            await pending.ConfigureAwait(false);
            for (var i = done + 1; i < 3; i++) await next(context).ConfigureAwait(false);
        }
    }
}

public sealed class ThrowSync : IBehavior<BenchContext, BenchContext>
{
    public Task Invoke(BenchContext context, Func<BenchContext, Task> next) => throw new InvalidOperationException("sync");
}

public sealed class ThrowAsync : IBehavior<BenchContext, BenchContext>
{
#pragma warning disable CS1998 // An async method that throws: the exception travels in a faulted task.
    public async Task Invoke(BenchContext context, Func<BenchContext, Task> next) => throw new InvalidOperationException("async");
#pragma warning restore CS1998
}

public sealed class End : PipelineTerminator<BenchContext>
{
    protected override Task Terminate(BenchContext context) => Task.CompletedTask;
}
