namespace Prewire.Pipeline;

/// <summary>
/// A step that ends one stage and starts the next: it turns a <typeparamref name="TFrom"/> context
/// into a <typeparamref name="TTo"/> context (usually a child of it) and continues with that.
/// </summary>
public abstract class StageConnector<TFrom, TTo> : IBehavior<TFrom, TTo>
    where TFrom : class, IBehaviorContext
    where TTo : class, IBehaviorContext
{
    /// <inheritdoc />
    public abstract ValueTask Invoke(TFrom context, Func<TTo, ValueTask> next);
}
