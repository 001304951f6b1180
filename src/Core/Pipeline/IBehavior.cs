namespace Prewire.Pipeline;

/// <summary>
/// One step of a pipeline: it receives a context of type <typeparamref name="TIn"/> and decides
/// whether, when and how often to continue with <c>next</c>, passing a context of type
/// <typeparamref name="TOut"/> (the same type for a behavior, a new one for a stage connector).
/// </summary>
/// <remarks>
/// <para>
/// <c>next</c> returns <see cref="Task"/> rather than <see cref="ValueTask"/>: a synchronously
/// completed <see cref="Task"/> is a cached singleton, so the success path allocates nothing either
/// way, and a <see cref="Task"/> may be awaited more than once or stored, which behaviors that replay
/// or retry <c>next</c> rely on; a <see cref="ValueTask"/> may not.
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
    Task Invoke(TIn context, Func<TOut, Task> next);
}
