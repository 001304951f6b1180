using System.Buffers;
using Prewire.Framing.Internal.Methods;
using Prewire.Amqp;

namespace Prewire.Framing.Internal;

/// <summary>A publish laid out around its body is byte for byte what the frame writer writes, cut only at frame ends.</summary>
public sealed class FramedContentTests
{
    private const uint FrameMax = 4096;
    private const int MaxPayload = (int)FrameMax - AmqpConstants.FrameOverhead;

    [Theory]
    [InlineData(1, 0)]
    [InlineData(MaxPayload, 0)]
    [InlineData(MaxPayload + 1, 0)]
    [InlineData(3 * MaxPayload, 0)]
    [InlineData(10 * MaxPayload + 17, 0)]
    [InlineData(10 * MaxPayload + 17, 1000)] // segments that end inside frames and frames that span segments
    [InlineData(10 * MaxPayload + 17, MaxPayload)]
    public void The_layout_is_what_the_frame_writer_writes_and_parts_end_after_whole_frames(int bodySize, int segmentSize)
    {
        var bytes = new byte[bodySize];
        Random.Shared.NextBytes(bytes);
        var body = segmentSize == 0 ? new ReadOnlySequence<byte>(bytes) : FrameTestKit.Segmented(bytes, segmentSize);
        var method = new BasicPublish(0, "exchange", "key", Mandatory: false, Immediate: false);
        var properties = new BasicProperties { MessageId = "m-1", Headers = new() { ["a"] = "b" } };
        var expected = new ArrayBufferWriter<byte>();
        AmqpFrameWriter.WritePublish(expected, 3, method, properties, body, FrameMax);
        var content = new FramedContent();

        // Twice: the second layout reuses the first one's links and buffers.
        for (var round = 0; round < 2; round++)
        {
            content.Reset();
            AmqpFrameWriter.WriteMethod(content.Head, 3, method);
            AmqpFrameWriter.WriteContentHeader(content.Head, 3, (ulong)body.Length, properties);
            var framed = content.Frame(3, body, FrameMax, framesPerPart: 3);

            Assert.Equal(expected.WrittenSpan.ToArray(), framed.ToArray());
            var frames = (bodySize + MaxPayload - 1) / MaxPayload;
            Assert.Equal((frames - 1) / 3, content.PartEnds.Count);
            var start = 0L;
            foreach (var end in content.PartEnds)
            {
                // Each part is whole frames: read from its start, frames end exactly at its end.
                var part = framed.Slice(start, end - start);
                while (AmqpFrameReader.TryReadFrame(ref part, FrameMax, out _))
                {
                }
                Assert.True(part.IsEmpty, $"a part ends inside a frame ({part.Length} bytes left)");
                if (segmentSize == 0) Assert.True(SegmentCount(framed.Slice(start, end - start)) <= 2 * 3 + 1, "a part of a single-segment body is two segments a frame and one more");
                start = end;
            }
        }
    }

    private static int SegmentCount(ReadOnlySequence<byte> sequence)
    {
        var count = 0;
        var position = sequence.Start;
        while (sequence.TryGet(ref position, out _)) count++;
        return count;
    }
}
