using System.Buffers;
using Prewire.Framing.Internal.Methods;
using Prewire.Framing.Internal;
using Prewire.Amqp;

namespace Prewire.Framing;

/// <summary>
/// Frames recorded from a real RabbitMQ broker talking to RabbitMQ.Client (build/capture/capture-vectors.sh):
/// every frame parses, and every method, header and publish written again by our writer is
/// byte-for-byte what the broker and the official client sent.
/// </summary>
public sealed class CapturedVectorTests
{
    private const uint FrameMax = 4096;

    private static byte[] Vector(string name) => File.ReadAllBytes(Path.Combine(AppContext.BaseDirectory, "Framing", "Vectors", name));

    public static TheoryData<string> Streams => new("client-to-broker.bin", "broker-to-client.bin");

    private static List<(Frame Frame, byte[] Raw)> Frames(string stream)
    {
        var bytes = Vector(stream);
        // The client opens with the 8-byte protocol header; frames follow.
        var start = stream.StartsWith("client", StringComparison.Ordinal) ? 8 : 0;
        if (start == 8) Assert.Equal(AmqpConstants.ProtocolHeader.ToArray(), bytes[..8]);
        // Until tune-ok the frame limit is the protocol minimum; both sides then use 4096 anyway.
        return FrameTestKit.ReadAll(new ReadOnlySequence<byte>(bytes, start, bytes.Length - start), FrameMax);
    }

    [Theory]
    [MemberData(nameof(Streams))]
    public void Every_recorded_frame_reads_and_every_method_and_header_writes_back_identically(string stream)
    {
        var frames = Frames(stream);
        Assert.NotEmpty(frames);
        foreach (var (frame, raw) in frames)
        {
            var output = new ArrayBufferWriter<byte>();
            switch (frame.Type)
            {
                case FrameType.Method:
                    Assert.True(MethodDispatch.TryVisit(frame, new WriteBack(output)), $"no method type for {AmqpFrameReader.ReadCommandId(frame)}");
                    break;
                case FrameType.ContentHeader:
                    var header = AmqpFrameReader.ReadContentHeader(frame);
                    AmqpFrameWriter.WriteContentHeader(output, frame.Channel, header.BodySize, header.Properties);
                    break;
                case FrameType.ContentBody:
                    AmqpFrameWriter.WriteContentBody(output, frame.Channel, frame.Payload.ToArray(), FrameMax);
                    break;
                case FrameType.Heartbeat:
                    AmqpFrameWriter.WriteHeartbeat(output);
                    break;
            }
            Assert.True(raw.AsSpan().SequenceEqual(output.WrittenSpan), $"{frame.Type} frame on channel {frame.Channel} differs after a round trip:\n{Convert.ToHexString(raw)}\n{Convert.ToHexString(output.WrittenSpan)}");
        }
    }

    [Fact]
    public void The_recording_holds_every_method_the_publisher_and_consumer_paths_use()
    {
        var seen = Frames("client-to-broker.bin").Concat(Frames("broker-to-client.bin"))
            .Where(f => f.Frame.Type == FrameType.Method)
            .Select(f => AmqpFrameReader.ReadCommandId(f.Frame))
            .ToHashSet();
        AmqpCommandId[] expected =
        [
            AmqpCommandId.ConnectionStart, AmqpCommandId.ConnectionStartOk, AmqpCommandId.ConnectionTune, AmqpCommandId.ConnectionTuneOk,
            AmqpCommandId.ConnectionOpen, AmqpCommandId.ConnectionOpenOk, AmqpCommandId.ConnectionClose, AmqpCommandId.ConnectionCloseOk,
            AmqpCommandId.ChannelOpen, AmqpCommandId.ChannelOpenOk, AmqpCommandId.ChannelClose, AmqpCommandId.ChannelCloseOk,
            AmqpCommandId.ConfirmSelect, AmqpCommandId.ConfirmSelectOk, AmqpCommandId.QueueDeclare, AmqpCommandId.QueueDeclareOk,
            AmqpCommandId.BasicQos, AmqpCommandId.BasicQosOk, AmqpCommandId.BasicConsume, AmqpCommandId.BasicConsumeOk,
            AmqpCommandId.BasicCancel, AmqpCommandId.BasicCancelOk, AmqpCommandId.BasicPublish, AmqpCommandId.BasicDeliver, AmqpCommandId.BasicAck,
        ];
        var missing = expected.Where(id => !seen.Contains(id)).ToList();
        Assert.True(missing.Count == 0, $"not in the recording: {string.Join(", ", missing)}");
    }

    [Fact]
    public void Each_recorded_publish_is_exactly_what_our_writer_produces_for_the_same_message()
    {
        var frames = Frames("client-to-broker.bin");
        var publishes = 0;
        for (var i = 0; i < frames.Count; i++)
        {
            if (frames[i].Frame.Type != FrameType.Method || AmqpFrameReader.ReadCommandId(frames[i].Frame) != BasicPublish.CommandId) continue;
            var publish = AmqpFrameReader.ReadMethod<BasicPublish>(frames[i].Frame);
            var header = AmqpFrameReader.ReadContentHeader(frames[i + 1].Frame);
            var recorded = new List<byte>(frames[i].Raw.Concat(frames[i + 1].Raw));
            var body = new List<byte>();
            for (var j = i + 2; body.Count < (int)header.BodySize; j++)
            {
                body.AddRange(frames[j].Frame.Payload.ToArray());
                recorded.AddRange(frames[j].Raw);
            }

            foreach (var segmentSize in new[] { int.MaxValue, 1000, 7 })
            {
                var output = new ArrayBufferWriter<byte>();
                AmqpFrameWriter.WritePublish(output, frames[i].Frame.Channel, publish, header.Properties, FrameTestKit.Segmented(body.ToArray(), segmentSize), FrameMax);
                Assert.Equal(recorded.ToArray(), output.WrittenSpan.ToArray());
            }
            publishes++;
        }
        Assert.Equal(9, publishes);
    }

    [Fact]
    public void The_recorded_deliveries_carry_the_published_properties_and_headers()
    {
        var frames = Frames("broker-to-client.bin");
        var headers = frames.Where(f => f.Frame.Type == FrameType.ContentHeader).Select(f => AmqpFrameReader.ReadContentHeader(f.Frame)).ToList();
        Assert.Equal(9, headers.Count);
        var first = headers[0].Properties;
        Assert.Equal(("application/octet-stream", (byte?)2, "m0", "c"), (first.ContentType, first.DeliveryMode, first.MessageId, first.CorrelationId));
        Assert.Equal(new AmqpTimestamp(1_790_000_000), first.Timestamp);
        Assert.Equal(0, first.Headers!["size"]);
        Assert.Equal("vector"u8.ToArray(), (byte[])first.Headers["name"]!);
        Assert.Equal(true, first.Headers["flag"]);
        Assert.Equal(1L, ((Dictionary<string, object?>)first.Headers["nested"]!)["n"]);
    }

    /// <summary>Reads a method frame as its type and writes it back.</summary>
    private readonly struct WriteBack(IBufferWriter<byte> output) : IMethodVisitor
    {
        public void Visit<T>(in Frame frame)
            where T : struct, IAmqpMethod<T> =>
            AmqpFrameWriter.WriteMethod(output, frame.Channel, AmqpFrameReader.ReadMethod<T>(frame));
    }
}
