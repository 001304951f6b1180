namespace Prewire.Pipeline;

/// <summary>What every pipeline context carries.</summary>
public interface IBehaviorContext
{
    /// <summary>Per-message state; a child context sees its parent's entries.</summary>
    ContextBag Extensions { get; }

    /// <summary>Cancels the work of this message; child contexts share it.</summary>
    CancellationToken CancellationToken { get; }
}
