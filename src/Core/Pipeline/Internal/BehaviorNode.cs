using System.Diagnostics;

namespace Prewire.Pipeline.Internal;

/// <summary>
/// One link of a prewired chain: a behavior and its continuation, both fixed when the pipeline is
/// built. <see cref="Invoke"/> is bound once into a delegate that the previous link holds as its
/// <c>next</c>, so an invocation is a chain of direct calls with nothing allocated and no state kept.
/// </summary>
internal sealed class BehaviorNode<TIn, TOut>(IBehavior<TIn, TOut> behavior, Func<TOut, Task> next)
    where TIn : class, IBehaviorContext
    where TOut : class, IBehaviorContext
{
    [StackTraceHidden]
    public Task Invoke(TIn context) => behavior.Invoke(context, next);
}
