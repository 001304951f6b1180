using System.Buffers;
using Prewire.Transport.Internal;

namespace Prewire.Amqp.Internal;

/// <summary>
/// One piece of a delivery's body where the socket put it (a frame's payload, or the part of one
/// in one pipe block), holding that block until the delivery is done. Linked, the pieces are the
/// body as one <see cref="ReadOnlySequence{T}"/>; kept by the consumer for the next delivery.
/// </summary>
internal sealed class BodySegment : ReadOnlySequenceSegment<byte>
{
    private BlockMemoryPool.Block? _block;
    private byte[]? _copy;

    /// <summary>Holds <paramref name="piece"/>'s block, or copies it when it is not in one of ours (a pool the user gave).</summary>
    public void Hold(ReadOnlyMemory<byte> piece, long runningIndex)
    {
        if (BlockMemoryPool.TryRetain(piece, out var block))
        {
            _block = block;
            Memory = piece;
        }
        else
        {
            _copy = ArrayPool<byte>.Shared.Rent(piece.Length);
            piece.CopyTo(_copy);
            Memory = _copy.AsMemory(0, piece.Length);
        }
        RunningIndex = runningIndex;
        Next = null;
    }

    public void Link(BodySegment next) => Next = next;

    public void Release()
    {
        _block?.Release();
        _block = null;
        if (_copy is not null) ArrayPool<byte>.Shared.Return(_copy);
        _copy = null;
        Memory = default;
        Next = null;
    }
}
