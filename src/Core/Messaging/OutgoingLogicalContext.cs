using System.Buffers;
using Prewire.Pipeline;
using Prewire.Tasks.Internal;

namespace Prewire.Messaging;

/// <summary>
/// A message being sent, as an object: behaviors here validate it and add headers. Disposing it
/// (once its pipeline completed) returns its body buffer and its headers to their pools.
/// </summary>
public sealed class OutgoingLogicalContext(string messageId, object message, CancellationToken cancellationToken = default)
    : BehaviorContext(cancellationToken), IDisposable
{
    private byte[]? _bodyBuffer;
    // Pooled: a dictionary grown to a message's few headers once serves every message after it.
    private Dictionary<string, string>? _headers = ObjectPool<Dictionary<string, string>>.TryRent() ?? new(StringComparer.Ordinal);

    /// <summary>The message id.</summary>
    public string MessageId { get; } = messageId;

    /// <summary>The message.</summary>
    public object Message { get; } = message;

    /// <summary>Headers to send; behaviors add to them. Theirs until <see cref="Dispose"/>, which clears them for the next message.</summary>
    /// <exception cref="ObjectDisposedException">The context was disposed.</exception>
    public Dictionary<string, string> Headers => _headers ?? throw new ObjectDisposedException(nameof(OutgoingLogicalContext));

    /// <summary>
    /// A buffer of at least <paramref name="minimumLength"/> bytes from the shared pool to serialize the
    /// body into: it stays this message's until <see cref="Dispose"/>, so the body is written once and
    /// handed to the client as it is. Renting again (a replayed step) gives the previous one back first.
    /// </summary>
    public byte[] RentBodyBuffer(int minimumLength)
    {
        ReturnBodyBuffer();
        return _bodyBuffer = ArrayPool<byte>.Shared.Rent(minimumLength);
    }

    /// <summary>
    /// Returns the body buffer and the headers to their pools: call it once the pipeline completed,
    /// never while the body or the headers (the physical and dispatch contexts share them) may still be read.
    /// </summary>
    public void Dispose()
    {
        ReturnBodyBuffer();
        if (Interlocked.Exchange(ref _headers, null) is { } headers)
        {
            headers.Clear();
            ObjectPool<Dictionary<string, string>>.Return(headers);
        }
    }

    private void ReturnBodyBuffer()
    {
        if (Interlocked.Exchange(ref _bodyBuffer, null) is { } buffer) ArrayPool<byte>.Shared.Return(buffer);
    }
}
