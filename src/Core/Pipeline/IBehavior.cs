namespace Prewire.Pipeline;

/// <summary>
/// One step of a pipeline: it receives a context of type <typeparamref name="TIn"/> and decides
/// whether, when and how often to continue with <c>next</c>, passing a context of type
/// <typeparamref name="TOut"/> (the same type for a behavior, a new one for a stage connector).
/// </summary>
/// <remarks>
/// <para>
/// Steps return <see cref="ValueTask"/>, not <see cref="Task"/>: a step that waits (for a broker's
/// confirm, say) can then complete from a pooled source, and an <c>async</c> step can take its state
/// machine from a pool (<see cref="Prewire.Tasks.PooledValueTaskMethodBuilder"/>), so a message whose
/// pipeline waits allocates nothing either; a pending <see cref="Task"/> is an allocation per step per
/// message. The price is <see cref="ValueTask"/>'s rule: await each one once (a step that needs it
/// twice calls <see cref="ValueTask.AsTask"/> once). Replaying <c>next</c> is calling it again, which
/// returns a new one.
/// </para>
/// <para>
/// <c>next</c> may be called more than once, one call after another (replay, retries). Calling it
/// concurrently is not supported: downstream behaviors share the context and are not required to be
/// thread-safe. <c>next</c> must not be called after the task returned by <c>Invoke</c> completed.
/// </para>
/// </remarks>
public interface IBehavior<TIn, TOut>
    where TIn : class, IBehaviorContext
    where TOut : class, IBehaviorContext
{
    /// <summary>Runs the step.</summary>
    ValueTask Invoke(TIn context, Func<TOut, ValueTask> next);
}
