using System.Runtime.CompilerServices;
using Prewire.Pipeline.Internal;
using Prewire.Tasks;

namespace Prewire.Pipeline;

/// <summary>
/// A step that runs another pipeline (the fork) with a context made from this one, then continues
/// this pipeline with the same context.
/// </summary>
public abstract class ForkConnector<TContext, TForkContext> : IBehavior<TContext, TContext>, IForkConnector
    where TContext : class, IBehaviorContext
    where TForkContext : class, IBehaviorContext
{
    private readonly Pipeline<TForkContext> _fork;

    /// <summary>Creates the connector around the pipeline it forks into.</summary>
    protected ForkConnector(Pipeline<TForkContext> fork)
    {
        ArgumentNullException.ThrowIfNull(fork);
        _fork = fork;
    }

    IReadOnlyList<PipelineStep> IForkConnector.ForkSteps => _fork.Steps;

    /// <summary>Makes the fork's context, usually a child of <paramref name="context"/>.</summary>
    protected abstract TForkContext CreateForkContext(TContext context);

    /// <inheritdoc />
    public ValueTask Invoke(TContext context, Func<TContext, ValueTask> next)
    {
        ArgumentNullException.ThrowIfNull(next);
        var fork = _fork.Invoke(CreateForkContext(context));
        if (!fork.IsCompletedSuccessfully) return ContinueAfterFork(fork, context, next);
        // Read, even though it succeeded: a pooled source goes back to its pool only then.
        fork.GetAwaiter().GetResult();
        return next(context);
    }

    [AsyncMethodBuilder(typeof(PooledValueTaskMethodBuilder))]
    private static async ValueTask ContinueAfterFork(ValueTask fork, TContext context, Func<TContext, ValueTask> next)
    {
        await fork.ConfigureAwait(false);
        await next(context).ConfigureAwait(false);
    }
}
