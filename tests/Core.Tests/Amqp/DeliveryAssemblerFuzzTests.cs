using System.Buffers;
using System.IO.Pipelines;
using Prewire.Amqp.Internal;
using Prewire.Framing.Internal;
using Prewire.Framing.Internal.Methods;
using Prewire.Transport.Internal;

namespace Prewire.Amqp;

/// <summary>
/// Deliveries written as a broker writes them, cut at random places, through a real pipe over the
/// connection's block pool, put together by the assembler, and checked against what was written:
/// every body byte for byte, also after the pipe moved on and its blocks took later data.
/// </summary>
public sealed class DeliveryAssemblerFuzzTests
{
    private const uint FrameMax = 4096;

    [Fact]
    public async Task Deliveries_cut_at_random_places_come_out_as_they_went_in()
    {
        var random = new Random(20261125);
        for (var round = 0; round < 300; round++)
        {
            var expected = Enumerable.Range(0, random.Next(1, 24)).Select(i => Message(random, i)).ToList();
            var wire = new ArrayBufferWriter<byte>();
            foreach (var message in expected) Write(wire, message);

            var (held, free, seen) = (new List<AmqpDelivery>(), new Stack<AmqpDelivery>(), 0);
            // Deliveries come back and are used again, with the pieces they kept, as the consumer's are.
            var assembler = new DeliveryAssembler(() => free.TryPop(out var reused) ? reused : new AmqpDelivery(null!));
            var pipe = new Pipe(new PipeOptions(BlockMemoryPool.Instance, pauseWriterThreshold: 0, minimumSegmentSize: BlockMemoryPool.BlockSize, useSynchronizationContext: false));
            var bytes = wire.WrittenMemory;
            while (!bytes.IsEmpty)
            {
                var chunk = bytes[..Math.Min(bytes.Length, 1 + random.Next(random.Next(2) == 0 ? 16 : 20_000))];
                await pipe.Writer.WriteAsync(chunk, TestContext.Current.CancellationToken);
                bytes = bytes[chunk.Length..];
                Assert.True(pipe.Reader.TryRead(out var result));
                var buffer = result.Buffer;
                while (AmqpFrameReader.TryReadFrame(ref buffer, FrameMax, out var frame))
                {
                    if (frame.Channel != 1) continue;
                    if (assembler.Add(frame) is not { } delivery) continue;
                    Check(expected[seen++], delivery);
                    held.Add(delivery);
                    // Some are let go at once, the rest held while the pipe moves on and reuses blocks.
                    if (random.Next(3) == 0) Release(held, free, random.Next(held.Count));
                }
                pipe.Reader.AdvanceTo(buffer.Start, buffer.End);
            }
            Assert.Equal(expected.Count, seen);
            // Held bodies are still the bytes they were when the pipe has long moved past them.
            foreach (var delivery in held) Check(expected.Single(m => m.Tag == delivery.DeliveryTag), delivery);
            while (held.Count > 0) Release(held, free, 0);
            await pipe.Writer.CompleteAsync();
            await pipe.Reader.CompleteAsync();
        }
    }

    [Fact]
    public void A_body_longer_than_its_header_announced_is_a_protocol_error()
    {
        var wire = new ArrayBufferWriter<byte>();
        var message = new Sent(1, false, "ex", "rk", "m", new byte[10]);
        AmqpFrameWriter.WriteMethod(wire, 1, new BasicDeliver("tag", message.Tag, false, "ex", "rk"));
        AmqpFrameWriter.WriteContentHeader(wire, 1, 5, null);
        AmqpFrameWriter.WriteContentBody(wire, 1, message.Body, FrameMax);
        var assembler = new DeliveryAssembler(() => new AmqpDelivery(null!));
        var buffer = new ReadOnlySequence<byte>(wire.WrittenMemory);
        var e = Assert.Throws<AmqpProtocolException>(() =>
        {
            while (AmqpFrameReader.TryReadFrame(ref buffer, FrameMax, out var frame)) assembler.Add(frame);
        });
        Assert.Contains("runs past the 5 bytes", e.Message, StringComparison.Ordinal);
    }

    private sealed record Sent(ulong Tag, bool Redelivered, string Exchange, string RoutingKey, string MessageId, byte[] Body);

    private static Sent Message(Random random, int index)
    {
        // Sizes around the frame boundaries more often than elsewhere.
        var payload = (int)FrameMax - 8;
        var size = random.Next(4) switch
        {
            0 => random.Next(3),
            1 => payload * random.Next(1, 4) + random.Next(-1, 2),
            _ => random.Next(4 * payload),
        };
        var body = new byte[size];
        random.NextBytes(body);
        return new Sent((ulong)index + 1, random.Next(2) == 0, random.Next(2) == 0 ? "" : "exchange", $"key.{random.Next(3)}", $"id-{index}", body);
    }

    private static void Write(ArrayBufferWriter<byte> wire, Sent message)
    {
        AmqpFrameWriter.WriteMethod(wire, 1, new BasicDeliver("ctag", message.Tag, message.Redelivered, message.Exchange, message.RoutingKey));
        // Another channel's frame between the delivery's: the assembler only ever sees its own.
        AmqpFrameWriter.WriteMethod(wire, 2, new BasicAck(message.Tag, false));
        AmqpFrameWriter.WriteContentHeader(wire, 1, (ulong)message.Body.Length, new BasicProperties { MessageId = message.MessageId, Headers = new() { ["n"] = (int)message.Tag } });
        AmqpFrameWriter.WriteContentBody(wire, 1, message.Body, FrameMax);
    }

    private static void Check(Sent expected, AmqpDelivery delivery)
    {
        Assert.Equal((expected.Tag, expected.Redelivered, expected.Exchange, expected.RoutingKey), (delivery.DeliveryTag, delivery.Redelivered, delivery.Exchange, delivery.RoutingKey));
        Assert.Equal(expected.MessageId, delivery.Properties.MessageId);
        Assert.Equal((int)expected.Tag, delivery.Properties.Headers!["n"]);
        Assert.True(expected.Body.AsSpan().SequenceEqual(delivery.Body.ToArray()), $"delivery {expected.Tag}'s body ({expected.Body.Length} bytes) differs");
    }

    private static void Release(List<AmqpDelivery> held, Stack<AmqpDelivery> free, int index)
    {
        DeliveryAssembler.Release(held[index]);
        free.Push(held[index]);
        held.RemoveAt(index);
    }
}
