using System.Buffers;
using Prewire.Framing.Internal;

namespace Prewire.Framing;

/// <summary>Helpers for the framing tests: splitting into multi-segment sequences, reading all frames.</summary>
internal static class FrameTestKit
{
    /// <summary>The same bytes as a sequence of segments of at most <paramref name="segmentSize"/> bytes.</summary>
    public static ReadOnlySequence<byte> Segmented(ReadOnlyMemory<byte> bytes, int segmentSize)
    {
        if (bytes.Length <= segmentSize) return new ReadOnlySequence<byte>(bytes);
        Segment? first = null, last = null;
        for (var offset = 0; offset < bytes.Length; offset += segmentSize)
        {
            var piece = bytes.Slice(offset, Math.Min(segmentSize, bytes.Length - offset));
            last = last is null ? first = new Segment(piece, 0) : last.Append(piece);
        }
        return new ReadOnlySequence<byte>(first!, 0, last!, last!.Memory.Length);
    }

    /// <summary>Every frame in <paramref name="bytes"/>, with the exact bytes each came from.</summary>
    public static List<(Frame Frame, byte[] Raw)> ReadAll(ReadOnlySequence<byte> bytes, uint frameMax)
    {
        var frames = new List<(Frame, byte[])>();
        var buffer = bytes;
        while (true)
        {
            var before = buffer;
            if (!AmqpFrameReader.TryReadFrame(ref buffer, frameMax, out var frame)) break;
            frames.Add((frame, before.Slice(0, before.Length - buffer.Length).ToArray()));
        }
        if (buffer.Length != 0) throw new InvalidOperationException($"{buffer.Length} bytes left that are not a whole frame");
        return frames;
    }

    private sealed class Segment : ReadOnlySequenceSegment<byte>
    {
        public Segment(ReadOnlyMemory<byte> memory, long runningIndex)
        {
            Memory = memory;
            RunningIndex = runningIndex;
        }

        public Segment Append(ReadOnlyMemory<byte> memory)
        {
            var next = new Segment(memory, RunningIndex + Memory.Length);
            Next = next;
            return next;
        }
    }
}
