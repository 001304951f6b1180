using System.Runtime.CompilerServices;
using Prewire.Pipeline;
using Prewire.Tasks;

namespace Prewire.Benchmarks.Pipeline;

public sealed class BenchContext : BehaviorContext
{
    public int Steps { get; set; }
}

/// <summary>A plain behavior: counts and continues. Shared by both builders so only the engine differs.</summary>
public sealed class Step : IBehavior<BenchContext, BenchContext>
{
    public ValueTask Invoke(BenchContext context, Func<BenchContext, ValueTask> next)
    {
        context.Steps++;
        return next(context);
    }
}

/// <summary>Calls next three times, synchronously when downstream completes synchronously.</summary>
public sealed class Replay : IBehavior<BenchContext, BenchContext>
{
    public ValueTask Invoke(BenchContext context, Func<BenchContext, ValueTask> next)
    {
        for (var i = 0; i < 3; i++)
        {
            var task = next(context);
            if (!task.IsCompletedSuccessfully) return Slow(task, i, context, next);
            task.GetAwaiter().GetResult();
        }
        return default;

        [AsyncMethodBuilder(typeof(PooledValueTaskMethodBuilder))]
        static async ValueTask Slow(ValueTask pending, int done, BenchContext context, Func<BenchContext, ValueTask> next)
        {
            await pending.ConfigureAwait(false);
            for (var i = done + 1; i < 3; i++) await next(context).ConfigureAwait(false);
        }
    }
}

public sealed class ThrowSync : IBehavior<BenchContext, BenchContext>
{
    public ValueTask Invoke(BenchContext context, Func<BenchContext, ValueTask> next) => throw new InvalidOperationException("sync");
}

public sealed class ThrowAsync : IBehavior<BenchContext, BenchContext>
{
#pragma warning disable CS1998 // An async method that throws: the exception travels in a faulted task.
    public async ValueTask Invoke(BenchContext context, Func<BenchContext, ValueTask> next) => throw new InvalidOperationException("async");
#pragma warning restore CS1998
}

public sealed class End : PipelineTerminator<BenchContext>
{
    protected override ValueTask Terminate(BenchContext context) => default;
}
