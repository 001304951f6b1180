using Prewire.Pipeline.Internal;

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
    public Task Invoke(TContext context, Func<TContext, Task> next)
    {
        ArgumentNullException.ThrowIfNull(next);
        var fork = _fork.Invoke(CreateForkContext(context));
        return fork.IsCompletedSuccessfully ? next(context) : ContinueAfterFork(fork, context, next);
    }

    private static async Task ContinueAfterFork(Task fork, TContext context, Func<TContext, Task> next)
    {
        await fork.ConfigureAwait(false);
        await next(context).ConfigureAwait(false);
    }
}
