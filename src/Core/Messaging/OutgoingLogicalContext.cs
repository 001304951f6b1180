using System.Buffers;
using Prewire.Pipeline;

namespace Prewire.Messaging;

/// <summary>
/// A message being sent, as an object: behaviors here validate it and add headers. Disposing it
/// (once its pipeline completed) returns its body buffer to the pool.
/// </summary>
public sealed class OutgoingLogicalContext(string messageId, object message, CancellationToken cancellationToken = default)
    : BehaviorContext(cancellationToken), IDisposable
{
    private byte[]? _bodyBuffer;

    /// <summary>The message id.</summary>
    public string MessageId { get; } = messageId;

    /// <summary>The message.</summary>
    public object Message { get; } = message;

    /// <summary>Headers to send; behaviors add to them.</summary>
    public Dictionary<string, string> Headers { get; } = new(StringComparer.Ordinal);

    /// <summary>
    /// A buffer of at least <paramref name="minimumLength"/> bytes from the shared pool to serialize the
    /// body into: it stays this message's until <see cref="Dispose"/>, so the body is written once and
    /// handed to the client as it is. Renting again (a replayed step) gives the previous one back first.
    /// </summary>
    public byte[] RentBodyBuffer(int minimumLength)
    {
        Dispose();
        return _bodyBuffer = ArrayPool<byte>.Shared.Rent(minimumLength);
    }

    /// <summary>Returns the body buffer to the pool: call it once the pipeline completed, never while the body may still be read.</summary>
    public void Dispose()
    {
        if (Interlocked.Exchange(ref _bodyBuffer, null) is { } buffer) ArrayPool<byte>.Shared.Return(buffer);
    }
}
