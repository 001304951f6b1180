using System.Buffers;
using Prewire.Framing.Internal.Methods;
using Prewire.Framing.Internal;
using Prewire.Amqp;

namespace Prewire.Framing;

/// <summary>
/// A million mutated and truncated frames through the reader and the method/header parsers: each
/// either parses, asks for more data, or fails with <see cref="AmqpProtocolException"/>; nothing
/// else escapes, and every call returns (no hang).
/// </summary>
public sealed class FrameReaderFuzzTests
{
    private const uint FrameMax = 4096;

    [Fact]
    public void A_million_mutated_or_truncated_frames_never_crash_or_hang_the_reader()
    {
        var seeds = SeedFrames();
        var random = new Random(20261122);
        var outcomes = new int[3];
        var scratch = new byte[seeds.Max(s => s.Length)];

        for (var i = 0; i < 1_000_000; i++)
        {
            var seed = seeds[random.Next(seeds.Count)];
            var length = Mutate(seed, scratch, random);
            var input = (i & 1) == 0
                ? new ReadOnlySequence<byte>(scratch, 0, length)
                : FrameTestKit.Segmented(scratch.AsMemory(0, length), 1 + random.Next(16));
            outcomes[Feed(input)]++;
        }

        // The mutations must exercise every outcome, or the test proves little.
        Assert.All(outcomes, count => Assert.True(count > 1000, $"outcomes (parsed, need more, protocol error): {string.Join(", ", outcomes)}"));
    }

    /// <summary>0: parsed, 1: needs more data, 2: protocol error. Anything else thrown fails the test.</summary>
    private static int Feed(ReadOnlySequence<byte> input)
    {
        try
        {
            var buffer = input;
            var frames = 0;
            while (AmqpFrameReader.TryReadFrame(ref buffer, FrameMax, out var frame))
            {
                if (++frames > 64) throw new InvalidOperationException("the reader keeps returning frames from a bounded input");
                Parse(frame);
            }
            return frames > 0 && buffer.IsEmpty ? 0 : 1;
        }
        catch (AmqpProtocolException)
        {
            return 2;
        }
    }

    private static void Parse(in Frame frame)
    {
        switch (frame.Type)
        {
            case FrameType.ContentHeader:
                AmqpFrameReader.ReadContentHeader(frame);
                break;
            case FrameType.Method:
                // Every known method is parsed; ids the fuzzer invents are simply not one of ours.
                MethodDispatch.TryVisit(frame, default(ReadOnly));
                break;
            default:
                break;
        }
    }

    private readonly struct ReadOnly : IMethodVisitor
    {
        public void Visit<T>(in Frame frame)
            where T : struct, IAmqpMethod<T> => AmqpFrameReader.ReadMethod<T>(frame);
    }

    private static int Mutate(byte[] seed, byte[] scratch, Random random)
    {
        var length = seed.Length;
        seed.CopyTo(scratch, 0);
        switch (random.Next(4))
        {
            case 0: // flip a few bytes anywhere
                for (var n = random.Next(1, 4); n > 0; n--) scratch[random.Next(length)] = (byte)random.Next(256);
                break;
            case 1: // truncate
                length = random.Next(length);
                break;
            case 2: // corrupt a length field inside the payload (strings and tables live there)
                if (length > 12)
                {
                    var at = 7 + random.Next(length - 8);
                    scratch[at] = (byte)(random.Next(2) == 0 ? 0xFF : random.Next(256));
                }
                break;
            default: // corrupt the frame header's size
                scratch[3 + random.Next(4)] = (byte)random.Next(256);
                break;
        }
        return length;
    }

    private static List<byte[]> SeedFrames()
    {
        var properties = new BasicProperties
        {
            ContentType = "text/plain",
            MessageId = "m",
            DeliveryMode = 2,
            Timestamp = new AmqpTimestamp(1),
            Headers = new() { ["s"] = "v", ["n"] = new Dictionary<string, object?> { ["i"] = 1, ["a"] = new List<object?> { 1L, "x" } } },
        };
        var seeds = new List<byte[]>();
        void Add(Action<ArrayBufferWriter<byte>> write)
        {
            var output = new ArrayBufferWriter<byte>();
            write(output);
            seeds.Add(output.WrittenSpan.ToArray());
        }
        Add(o => AmqpFrameWriter.WriteMethod(o, 0, new ConnectionStart(0, 9, new() { ["product"] = "RabbitMQ", ["capabilities"] = new Dictionary<string, object?> { ["publisher_confirms"] = true } }, "PLAIN AMQPLAIN"u8.ToArray(), "en_US"u8.ToArray())));
        Add(o => AmqpFrameWriter.WriteMethod(o, 0, new ConnectionTune(2047, 131072, 60)));
        Add(o => AmqpFrameWriter.WriteMethod(o, 0, new ConnectionClose(320, "CONNECTION_FORCED - broker forced connection closure", 0, 0)));
        Add(o => AmqpFrameWriter.WriteMethod(o, 1, new ChannelClose(404, "NOT_FOUND - no exchange 'x'", 60, 40)));
        Add(o => AmqpFrameWriter.WriteMethod(o, 1, new QueueDeclare(0, "q", false, true, false, false, false, new() { ["x-queue-type"] = "classic" })));
        Add(o => AmqpFrameWriter.WriteMethod(o, 1, new BasicReturn(312, "NO_ROUTE", "", "nowhere")));
        Add(o => AmqpFrameWriter.WriteMethod(o, 1, new BasicDeliver("ctag", 7, false, "", "q")));
        Add(o => AmqpFrameWriter.WriteMethod(o, 1, new BasicAck(9, true)));
        Add(o => AmqpFrameWriter.WriteMethod(o, 1, new BasicNack(9, false, true)));
        Add(o => AmqpFrameWriter.WritePublish(o, 1, new BasicPublish(0, "ex", "rk", true, false), properties, new byte[100], FrameMax));
        Add(o => AmqpFrameWriter.WriteContentBody(o, 1, new byte[5000], FrameMax));
        Add(AmqpFrameWriter.WriteHeartbeat);
        return seeds;
    }
}
