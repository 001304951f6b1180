namespace Prewire.Pipeline;

/// <summary>Base of the context types: a bag that inherits the parent's, and the cancellation token.</summary>
public abstract class BehaviorContext : IBehaviorContext
{
    /// <summary>A root context.</summary>
    protected BehaviorContext(CancellationToken cancellationToken = default)
    {
        Extensions = new ContextBag();
        CancellationToken = cancellationToken;
    }

    /// <summary>A child context: its bag falls back to the parent's, and it shares the parent's token.</summary>
    protected BehaviorContext(IBehaviorContext parent)
    {
        ArgumentNullException.ThrowIfNull(parent);
        Extensions = new ContextBag(parent.Extensions);
        CancellationToken = parent.CancellationToken;
    }

    /// <inheritdoc />
    public ContextBag Extensions { get; }

    /// <inheritdoc />
    public CancellationToken CancellationToken { get; }
}
