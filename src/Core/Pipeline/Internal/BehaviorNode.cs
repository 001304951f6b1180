using System.Diagnostics;

namespace Prewire.Pipeline.Internal;

/// <summary>
/// One link of a prewired chain: a behavior and its continuation, both fixed when the pipeline is
/// built. <see cref="Invoke"/> is bound once into a delegate that the previous link holds as its
/// <c>next</c>, so an invocation is a chain of direct calls with nothing allocated and no state kept.
/// </summary>
/// <remarks>
/// The behavior is called through a delegate bound to its own <c>Invoke</c> at build time, not
/// through <see cref="IBehavior{TIn, TOut}"/>: node code is shared by every instantiation over
/// reference types, so an interface call here would be one call site for every behavior of every
/// pipeline, dispatched through a polymorphic stub on each call. Binding the delegate resolves the
/// implementation once.
/// </remarks>
internal sealed class BehaviorNode<TIn, TOut>(IBehavior<TIn, TOut> behavior, Func<TOut, ValueTask> next)
    where TIn : class, IBehaviorContext
    where TOut : class, IBehaviorContext
{
    private readonly Func<TIn, Func<TOut, ValueTask>, ValueTask> _behavior = behavior.Invoke;
    private readonly Func<TOut, ValueTask> _next = next;

    [StackTraceHidden]
    public ValueTask Invoke(TIn context) => _behavior(context, _next);
}
