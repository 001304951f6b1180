namespace Prewire.Pipeline;

public abstract partial class PipelineTerminator<TContext>
{
    /// <summary>The context type after a terminator: nothing runs with it; it marks the end of the chain.</summary>
    public interface ITerminatingContext : IBehaviorContext;
}
