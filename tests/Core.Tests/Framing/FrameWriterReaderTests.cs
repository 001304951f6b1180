using System.Buffers;
using System.Text;
using Prewire.Framing.Internal.Methods;
using Prewire.Framing.Internal;
using Prewire.Amqp;

namespace Prewire.Framing;

public sealed class FrameWriterReaderTests
{
    private const uint FrameMax = 4096;
    private const int MaxPayload = (int)FrameMax - AmqpConstants.FrameOverhead;

    public static TheoryData<int, int> BodySizesBySegmentSize()
    {
        var data = new TheoryData<int, int>();
        foreach (var size in new[] { 0, 1, (int)FrameMax - 1, (int)FrameMax, (int)FrameMax + 1, MaxPayload, MaxPayload + 1, 1 << 20 })
            foreach (var segment in new[] { int.MaxValue, 4096, 1000, 1 })
                if (!(segment == 1 && size > 100_000)) data.Add(size, segment);
        return data;
    }

    [Theory]
    [MemberData(nameof(BodySizesBySegmentSize))]
    public void A_publish_reads_back_whole_split_at_frame_max(int bodySize, int segmentSize)
    {
        var body = new byte[bodySize];
        Random.Shared.NextBytes(body);
        var properties = new BasicProperties { ContentType = "application/octet-stream", MessageId = "id", Headers = new() { ["k"] = "v" } };
        var output = new ArrayBufferWriter<byte>();

        AmqpFrameWriter.WritePublish(output, 3, new BasicPublish(0, "ex", "rk", Mandatory: true, Immediate: false), properties, FrameTestKit.Segmented(body, segmentSize), FrameMax);

        // Read it back from a multi-segment buffer too, as a PipeReader may hand it over.
        var frames = FrameTestKit.ReadAll(FrameTestKit.Segmented(output.WrittenMemory, 777), FrameMax);
        var publish = AmqpFrameReader.ReadMethod<BasicPublish>(frames[0].Frame);
        Assert.Equal(("ex", "rk", true), (publish.Exchange, publish.RoutingKey, publish.Mandatory));
        var header = AmqpFrameReader.ReadContentHeader(frames[1].Frame);
        Assert.Equal((ulong)bodySize, header.BodySize);
        Assert.Equal("id", header.Properties.MessageId);

        var bodyFrames = frames.Skip(2).ToList();
        Assert.Equal((bodySize + MaxPayload - 1) / MaxPayload, bodyFrames.Count);
        Assert.All(bodyFrames, f => Assert.True(f.Frame.Type == FrameType.ContentBody && f.Frame.Channel == 3 && f.Frame.Payload.Length <= MaxPayload));
        Assert.Equal(body, bodyFrames.SelectMany(f => f.Frame.Payload.ToArray()).ToArray());
    }

    [Fact]
    public void Names_and_headers_beyond_ASCII_and_nested_tables_and_arrays_read_back_the_same()
    {
        // ASCII text is narrowed, the rest goes through the UTF-8 encoder; each table's and array's
        // length is filled in after its entries.
        var headers = new Dictionary<string, object?>
        {
            ["héllo"] = "wörld €",
            ["plain"] = "ascii",
            ["nested"] = new Dictionary<string, object?> { ["ключ"] = 42, ["list"] = new List<object?> { "é", 1L, null } },
        };
        var output = new ArrayBufferWriter<byte>();

        AmqpFrameWriter.WritePublish(output, 1, new BasicPublish(0, "échange", "rk", Mandatory: false, Immediate: false), new BasicProperties { Headers = headers }, new ReadOnlySequence<byte>(new byte[10]), FrameMax);

        var frames = FrameTestKit.ReadAll(new ReadOnlySequence<byte>(output.WrittenMemory), FrameMax);
        Assert.Equal(3, frames.Count);
        Assert.Equal("échange", AmqpFrameReader.ReadMethod<BasicPublish>(frames[0].Frame).Exchange);
        var read = AmqpFrameReader.ReadContentHeader(frames[1].Frame).Properties.Headers!;
        Assert.Equal(["héllo", "plain", "nested"], read.Keys);
        Assert.Equal("wörld €", Encoding.UTF8.GetString((byte[])read["héllo"]!));
        Assert.Equal("ascii", Encoding.UTF8.GetString((byte[])read["plain"]!));
        var nested = (Dictionary<string, object?>)read["nested"]!;
        Assert.Equal(42, nested["ключ"]);
        var list = (List<object?>)nested["list"]!;
        Assert.Equal(("é", 1L, (object?)null), (Encoding.UTF8.GetString((byte[])list[0]!), list[1], list[2]));
    }

    [Fact]
    public void A_method_frames_ids_read_the_same_whole_or_split_at_every_byte()
    {
        var output = new ArrayBufferWriter<byte>();
        AmqpFrameWriter.WriteMethod(output, 1, new BasicAck(7, false));
        foreach (var segmentSize in (int[])[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 64])
        {
            var frame = Assert.Single(FrameTestKit.ReadAll(FrameTestKit.Segmented(output.WrittenMemory, segmentSize), FrameMax)).Frame;
            Assert.Equal(BasicAck.CommandId, AmqpFrameReader.ReadCommandId(frame));
        }
    }

    [Fact]
    public void Every_proper_prefix_of_a_frame_asks_for_more_data_and_consumes_nothing()
    {
        var output = new ArrayBufferWriter<byte>();
        AmqpFrameWriter.WriteMethod(output, 1, new BasicAck(42, Multiple: true));
        var bytes = output.WrittenMemory;

        for (var length = 0; length < bytes.Length; length++)
        {
            var buffer = new ReadOnlySequence<byte>(bytes[..length]);
            Assert.False(AmqpFrameReader.TryReadFrame(ref buffer, FrameMax, out _));
            Assert.Equal(length, buffer.Length);
        }
        var whole = new ReadOnlySequence<byte>(bytes);
        Assert.True(AmqpFrameReader.TryReadFrame(ref whole, FrameMax, out var frame));
        Assert.Equal(new BasicAck(42, true), AmqpFrameReader.ReadMethod<BasicAck>(frame));
        Assert.True(whole.IsEmpty);
    }

    [Fact]
    public void Field_tables_round_trip_every_value_type()
    {
        var table = new Dictionary<string, object?>
        {
            ["void"] = null,
            ["bool"] = true,
            ["sbyte"] = (sbyte)-5,
            ["byte"] = (byte)250,
            ["short"] = (short)-300,
            ["ushort"] = (ushort)60000,
            ["int"] = -70000,
            ["uint"] = 4_000_000_000u,
            ["long"] = long.MinValue,
            ["float"] = 1.5f,
            ["double"] = -2.25,
            ["decimal"] = new AmqpDecimal(2, 12345),
            ["time"] = new AmqpTimestamp(1_790_000_000),
            ["bytes"] = "raw"u8.ToArray(),
            ["x"] = new AmqpBytes([1, 2, 3]),
            ["table"] = new Dictionary<string, object?> { ["inner"] = 1 },
            ["array"] = new List<object?> { 1, "two", null },
        };
        var output = new ArrayBufferWriter<byte>();
        AmqpFrameWriter.WriteMethod(output, 0, new QueueDeclare(0, "q", false, true, false, false, false, table));

        var frames = FrameTestKit.ReadAll(new ReadOnlySequence<byte>(output.WrittenMemory), FrameMax);
        var read = AmqpFrameReader.ReadMethod<QueueDeclare>(frames[0].Frame).Arguments!;

        Assert.Equal(table.Keys, read.Keys);
        foreach (var key in new[] { "void", "bool", "sbyte", "byte", "short", "ushort", "int", "uint", "long", "float", "double", "decimal", "time" })
            Assert.Equal(table[key], read[key]);
        Assert.Equal("raw"u8.ToArray(), (byte[])read["bytes"]!);
        Assert.Equal(new byte[] { 1, 2, 3 }, ((AmqpBytes)read["x"]!).Bytes);
        Assert.Equal(1, ((Dictionary<string, object?>)read["table"]!)["inner"]);
        Assert.Equal(3, ((List<object?>)read["array"]!).Count);
    }

    [Fact]
    public void A_string_that_does_not_fit_a_short_string_is_refused_before_writing()
    {
        var output = new ArrayBufferWriter<byte>();
        var e = Assert.Throws<ArgumentException>(() => AmqpFrameWriter.WriteMethod(output, 1, new BasicPublish(0, new string('x', 256), "rk", false, false)));
        Assert.Contains("at most 255 bytes", e.Message, StringComparison.Ordinal);
        Assert.Equal(0, output.WrittenCount);
    }

    public static TheoryData<string, byte[], string> Malformed => new()
    {
        { "unknown frame type", [9, 0, 0, 0, 0, 0, 0, 0xCE], "unknown frame type 9" },
        { "protocol header", "AMQP\0\0\u0009\u0001"u8.ToArray(), "protocol header instead of a frame" },
        { "bad frame end", [1, 0, 1, 0, 0, 0, 4, 0, 60, 0, 80, 0x00], "not the frame-end octet" },
        { "over frame-max", [3, 0, 1, 0, 0, 0x10, 0x00, 0xCE], "exceeds frame-max 4096" },
        { "heartbeat with payload", [8, 0, 0, 0, 0, 0, 1, 0, 0xCE], "heartbeat frame must be empty" },
        { "heartbeat off channel 0", [8, 0, 1, 0, 0, 0, 0, 0xCE], "heartbeat frame must be empty on channel 0" },
    };

    [Theory]
    [MemberData(nameof(Malformed))]
    public void Malformed_frames_fail_with_a_protocol_error_that_says_why(string because, byte[] bytes, string message)
    {
        _ = because;
        var buffer = new ReadOnlySequence<byte>(bytes);
        var e = Assert.Throws<AmqpProtocolException>(() => AmqpFrameReader.TryReadFrame(ref buffer, FrameMax, out _));
        Assert.Contains(message, e.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void A_length_running_past_its_frame_is_a_protocol_error_not_an_allocation()
    {
        // basic.publish whose exchange short string claims 200 bytes in a 10-byte payload.
        byte[] bytes = [1, 0, 1, 0, 0, 0, 10, 0, 60, 0, 40, 0, 0, 200, (byte)'e', 0, 0, 0xCE];
        var buffer = new ReadOnlySequence<byte>(bytes);
        Assert.True(AmqpFrameReader.TryReadFrame(ref buffer, FrameMax, out var frame));

        var e = Assert.Throws<AmqpProtocolException>(() => AmqpFrameReader.ReadMethod<BasicPublish>(frame));
        Assert.Contains("a short string of 200 bytes runs past the end of its frame", e.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Tables_nested_too_deep_are_refused()
    {
        var table = new Dictionary<string, object?>();
        var inner = table;
        for (var i = 0; i < AmqpReader.MaxTableDepth + 1; i++)
        {
            var next = new Dictionary<string, object?>();
            inner["n"] = next;
            inner = next;
        }
        var output = new ArrayBufferWriter<byte>();
        AmqpFrameWriter.WriteContentHeader(output, 1, 0, new BasicProperties { Headers = table });
        var buffer = new ReadOnlySequence<byte>(output.WrittenMemory);
        Assert.True(AmqpFrameReader.TryReadFrame(ref buffer, 0, out var frame));

        var e = Assert.Throws<AmqpProtocolException>(() => AmqpFrameReader.ReadContentHeader(frame));
        Assert.Contains("nest deeper than 16 levels", e.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Trailing_bytes_after_a_method_are_a_protocol_error()
    {
        byte[] bytes = [1, 0, 1, 0, 0, 0, 14, 0, 60, 0, 80, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0xFF, 0xCE];
        var buffer = new ReadOnlySequence<byte>(bytes);
        Assert.True(AmqpFrameReader.TryReadFrame(ref buffer, FrameMax, out var frame));
        var e = Assert.Throws<AmqpProtocolException>(() => AmqpFrameReader.ReadMethod<BasicAck>(frame));
        Assert.Contains("unexpected trailing byte", e.Message, StringComparison.Ordinal);
    }
}
