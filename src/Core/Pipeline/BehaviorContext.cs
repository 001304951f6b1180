namespace Prewire.Pipeline;

/// <summary>Base of the context types: a bag that inherits the parent's, and the cancellation token.</summary>
public abstract class BehaviorContext : IBehaviorContext
{
    private readonly IBehaviorContext? _parent;
    private ContextBag? _extensions;

    /// <summary>A root context.</summary>
    protected BehaviorContext(CancellationToken cancellationToken = default) => CancellationToken = cancellationToken;

    /// <summary>A child context: its bag falls back to the parent's, and it shares the parent's token.</summary>
    protected BehaviorContext(IBehaviorContext parent)
    {
        ArgumentNullException.ThrowIfNull(parent);
        _parent = parent;
        CancellationToken = parent.CancellationToken;
    }

    /// <inheritdoc />
    /// <remarks>Made on first use: most messages never touch it, and a bag per context per stage was most of what a message cost.</remarks>
    public ContextBag Extensions => _extensions ?? CreateExtensions();

    /// <inheritdoc />
    public CancellationToken CancellationToken { get; private set; }

    /// <summary>
    /// Readies a context kept for reuse for its next message: the bag is dropped (made again on first
    /// use) and the token is <paramref name="cancellationToken"/> for a root, the parent's for a child.
    /// </summary>
    protected void Reuse(CancellationToken cancellationToken = default)
    {
        _extensions = null;
        CancellationToken = _parent?.CancellationToken ?? cancellationToken;
    }

    private ContextBag CreateExtensions()
    {
        var bag = new ContextBag(_parent?.Extensions);
        return Interlocked.CompareExchange(ref _extensions, bag, null) ?? bag;
    }
}
