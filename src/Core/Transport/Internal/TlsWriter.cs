using System.Buffers;
using System.Net.Security;

namespace Prewire.Transport.Internal;

/// <summary>
/// What the send loop writes through TLS. A piece of 4 KiB or more (a body, a pipe block) is encrypted
/// where it lies, one <see cref="SslStream.WriteAsync(ReadOnlyMemory{byte}, CancellationToken)"/>; smaller
/// pieces (frame headers, the 8 bytes between a body's frames, small messages) are gathered into one
/// buffer first, since each write is at least one TLS record (29 bytes of overhead with AES-GCM) and a
/// system call: a 1 MiB body in 128 KiB frames would otherwise cost 16 records for 8-byte gaps alone.
/// </summary>
internal sealed class TlsWriter(SslStream stream) : IDisposable
{
    private const int DirectThreshold = 4 * 1024;

    // One TLS record's worth of plaintext (16 KiB): a full buffer goes out as a record of its own.
    private readonly byte[] _gathered = ArrayPool<byte>.Shared.Rent(16 * 1024);
    private int _length;

    public async ValueTask WriteAsync(ReadOnlySequence<byte> data)
    {
        foreach (var piece in data)
        {
            if (piece.Length >= DirectThreshold)
            {
                await FlushAsync().ConfigureAwait(false);
                await stream.WriteAsync(piece).ConfigureAwait(false);
                continue;
            }
            if (_length + piece.Length > _gathered.Length) await FlushAsync().ConfigureAwait(false);
            piece.Span.CopyTo(_gathered.AsSpan(_length));
            _length += piece.Length;
        }
    }

    /// <summary>Writes what was gathered: at the end of each batch the send loop took, so nothing waits for more.</summary>
    public ValueTask FlushAsync()
    {
        if (_length == 0) return default;
        var length = _length;
        _length = 0;
        return stream.WriteAsync(_gathered.AsMemory(0, length));
    }

    public void Dispose() => ArrayPool<byte>.Shared.Return(_gathered);
}
