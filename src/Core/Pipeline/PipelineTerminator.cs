namespace Prewire.Pipeline;

/// <summary>The last step of a pipeline: it does the work the pipeline exists for and continues nowhere.</summary>
public abstract partial class PipelineTerminator<TContext> : IBehavior<TContext, PipelineTerminator<TContext>.ITerminatingContext>
    where TContext : class, IBehaviorContext
{
    /// <summary>Does the final work.</summary>
    protected abstract ValueTask Terminate(TContext context);

    // RS0041 misreads a nested type of a class-constrained generic as oblivious (dotnet/roslyn-analyzers#6921).
#pragma warning disable RS0041
    /// <inheritdoc />
    public ValueTask Invoke(TContext context, Func<ITerminatingContext, ValueTask> next) => Terminate(context);
#pragma warning restore RS0041
}
