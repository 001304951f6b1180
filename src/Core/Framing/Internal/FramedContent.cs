using System.Buffers;
using System.Diagnostics.CodeAnalysis;

namespace Prewire.Framing.Internal;

/// <summary>
/// A publish laid out as AMQP frames around the caller's body, without copying the body: the method
/// and content header frames are written into <see cref="Head"/>, and <see cref="Frame"/> links them,
/// the body's slices and the few bytes between body frames (a frame end and the next frame's header)
/// into one <see cref="ReadOnlySequence{T}"/> for a vectored send. Reusable: one publish at a time.
/// </summary>
internal sealed partial class FramedContent
{
    private readonly ArrayBufferWriter<byte> _head = new(256);
    private readonly List<Node> _nodes = [];
    private readonly List<long> _partEnds = [];
    private byte[] _between = [];
    private int _used;

    /// <summary>Where the publish's method and content header frames are written first.</summary>
    public IBufferWriter<byte> Head => _head;

    /// <summary>Offsets, in the sequence <see cref="Frame"/> returned, after which other frames may go on the wire.</summary>
    public List<long> PartEnds => _partEnds;

    public void Reset()
    {
        _head.ResetWrittenCount();
        _partEnds.Clear();
        _used = 0;
    }

    /// <summary>
    /// The head followed by <paramref name="body"/> (not empty) as body frames of at most
    /// <paramref name="frameMax"/> bytes on <paramref name="channel"/>, cut into parts of
    /// <paramref name="framesPerPart"/> whole frames (<see cref="PartEnds"/>).
    /// </summary>
    public ReadOnlySequence<byte> Frame(ushort channel, in ReadOnlySequence<byte> body, uint frameMax, int framesPerPart)
    {
        var maxPayload = AmqpFrameWriter.MaxPayload(frameMax);
        var frames = (int)((body.Length + maxPayload - 1) / maxPayload);
        // Frame k's end octet and frame k+1's header sit together, 8 bytes per gap, then the last end.
        var betweenSize = AmqpConstants.FrameOverhead * (frames - 1) + 1;
        if (_between.Length < betweenSize) _between = new byte[betweenSize];

        var remaining = body;
        var size = Math.Min(remaining.Length, maxPayload);
        AmqpFrameWriter.WriteFrameHeader(_head.GetSpan(AmqpConstants.FrameHeaderSize), FrameType.ContentBody, channel, (uint)size);
        _head.Advance(AmqpConstants.FrameHeaderSize);
        Node? last = null;
        var first = Append(ref last, _head.WrittenMemory);
        for (var frame = 1; ; frame++)
        {
            var payload = remaining.Slice(0, size);
            foreach (var segment in payload) Append(ref last, segment);
            remaining = remaining.Slice(payload.End);
            var gap = AmqpConstants.FrameOverhead * (frame - 1);
            _between[gap] = AmqpConstants.FrameEnd;
            if (remaining.IsEmpty)
            {
                Append(ref last, _between.AsMemory(gap, 1));
                break;
            }
            size = Math.Min(remaining.Length, maxPayload);
            AmqpFrameWriter.WriteFrameHeader(_between.AsSpan(gap + 1), FrameType.ContentBody, channel, (uint)size);
            var end = last.RunningIndex + last.Memory.Length + 1;
            Append(ref last, _between.AsMemory(gap, AmqpConstants.FrameOverhead));
            if (frame % framesPerPart == 0) _partEnds.Add(end);
        }
        return new ReadOnlySequence<byte>(first, 0, last, last.Memory.Length);
    }

    private Node Append([NotNull] ref Node? last, ReadOnlyMemory<byte> memory)
    {
        if (_used == _nodes.Count) _nodes.Add(new Node());
        var node = _nodes[_used++];
        node.Set(memory, last is null ? 0 : last.RunningIndex + last.Memory.Length);
        last?.Link(node);
        last = node;
        return node;
    }
}
