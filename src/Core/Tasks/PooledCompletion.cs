namespace Prewire.Tasks;

/// <summary>Starts pooled operations.</summary>
public static class PooledCompletion
{
    /// <summary>
    /// Starts an operation. When <paramref name="cancellationToken"/> is cancelled first, the operation
    /// completes with <see cref="OperationCanceledException"/> (registering a cancellable token
    /// allocates its registration; <see cref="CancellationToken.None"/> allocates nothing).
    /// </summary>
    /// <param name="runContinuationsAsynchronously">
    /// Defaults to <see langword="true"/>: the awaiting code never runs on the completer's thread.
    /// </param>
    /// <param name="cancellationToken">Cancels the operation.</param>
    public static PooledCompletion<T> Rent<T>(bool runContinuationsAsynchronously = true, CancellationToken cancellationToken = default) =>
        PooledCompletion<T>.Rent(runContinuationsAsynchronously, cancellationToken);
}
