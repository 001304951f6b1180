using Prewire.Tasks.Internal;

namespace Prewire.Tasks;

/// <summary>
/// One pending operation backed by a pooled <see cref="System.Threading.Tasks.Sources.IValueTaskSource{TResult}"/>:
/// the producer completes it, the consumer awaits <see cref="Task"/> once, and the backing object goes
/// back to the pool when that await reads the result. Allocates nothing once the pool is warm.
/// </summary>
/// <remarks>
/// <para>
/// <see cref="Task"/> may be awaited exactly once. A second await, or an await of a task whose
/// operation is over, throws <see cref="InvalidOperationException"/>: it never reads another
/// operation's result. Likewise a completion through a copy of this struct whose operation is over
/// does nothing and returns <see langword="false"/>.
/// </para>
/// <para>
/// Dropping <see cref="Task"/> without awaiting it does not leak: the backing object is simply not
/// returned to the pool and the garbage collector takes it like any other object; the pool makes a
/// new one when it runs dry.
/// </para>
/// <para>
/// Continuations run asynchronously by default, so a completer (a socket reader, say) never runs
/// the awaiting code on its own thread; pass <c>runContinuationsAsynchronously: false</c> to run them
/// inline on the completing thread where that is known to be safe.
/// </para>
/// </remarks>
public readonly struct PooledCompletion<T> : IEquatable<PooledCompletion<T>>
{
    private readonly PooledValueTaskSource<T> _source;
    private readonly short _version;

    private PooledCompletion(PooledValueTaskSource<T> source, short version)
    {
        _source = source;
        _version = version;
    }

    internal static PooledCompletion<T> Rent(bool runContinuationsAsynchronously, CancellationToken cancellationToken)
    {
        var source = PooledValueTaskSource<T>.Rent(runContinuationsAsynchronously);
        var version = source.Version;
        source.CancelWhen(version, cancellationToken);
        return new PooledCompletion<T>(source, version);
    }

    /// <summary>The operation's result, to be awaited once.</summary>
    public ValueTask<T> Task => new(_source, _version);

    /// <summary>The operation as a result-less <see cref="ValueTask"/>, to be awaited once.</summary>
    public ValueTask AsValueTask() => new(_source, _version);

    /// <summary>Completes the operation; <see langword="false"/> when it was already completed (or is over).</summary>
    public bool TrySetResult(T result) => _source.TrySetResult(_version, result);

    /// <summary>Fails the operation; <see langword="false"/> when it was already completed (or is over).</summary>
    public bool TrySetException(Exception exception)
    {
        ArgumentNullException.ThrowIfNull(exception);
        return _source.TrySetException(_version, exception);
    }

    /// <summary>Cancels the operation; <see langword="false"/> when it was already completed (or is over).</summary>
    public bool TrySetCanceled(CancellationToken cancellationToken = default) =>
        _source.TrySetException(_version, new OperationCanceledException(cancellationToken));

    /// <inheritdoc />
    public bool Equals(PooledCompletion<T> other) => ReferenceEquals(_source, other._source) && _version == other._version;

    /// <inheritdoc />
    public override bool Equals(object? obj) => obj is PooledCompletion<T> other && Equals(other);

    /// <inheritdoc />
    public override int GetHashCode() => HashCode.Combine(_source, _version);

    /// <summary>Same operation.</summary>
    public static bool operator ==(PooledCompletion<T> left, PooledCompletion<T> right) => left.Equals(right);

    /// <summary>Not the same operation.</summary>
    public static bool operator !=(PooledCompletion<T> left, PooledCompletion<T> right) => !left.Equals(right);
}
