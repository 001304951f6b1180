using System.Buffers;
using Prewire.Framing.Internal;
using Prewire.Testing;

namespace Prewire.Amqp;

/// <summary>
/// What goes on the wire when publishes on several channels overlap: recorded by a relay between the
/// publisher and the real broker, then read frame by frame.
/// </summary>
public sealed class AmqpPublisherInterleavingTests
{
    [Fact]
    public async Task Other_channels_frames_go_between_a_large_bodys_frames_and_no_channel_ever_mixes_two_contents()
    {
        var ct = TestContext.Current.CancellationToken;
        using var relay = new TcpRelay(TestBroker.Uri.Port);
        var uri = AmqpUri.Parse($"amqp://guest:guest@127.0.0.1:{relay.Port}/");
        await using (var publisher = await AmqpPublisher.ConnectAsync(new AmqpPublisherOptions { Uri = uri, ClientName = "prewire-tests", Channels = 4 }, ct))
        {
            // A body larger than all the socket buffers between here and the relay (16 MiB) and two of
            // 1 MiB first, while the relay stops reading: the large body's send waits on a full socket
            // part-way. Then a stream of small publishes, the first flushed behind it: on release it must
            // go out between the large body's parts, not after the body. Messages go to amq.fanout with
            // nothing bound, so the broker drops them after its confirm.
            var small = new byte[64];
            relay.HoldClient();
            var larges = new[] { 16 << 20, 1 << 20, 1 << 20 }.Select(size => publisher.PublishAsync("amq.fanout", "", null, new byte[size], cancellationToken: ct).AsTask()).ToArray();
            await Task.Delay(TimeSpan.FromMilliseconds(200), ct);
            var smalls = Task.Run(async () =>
            {
                for (var i = 0; i < 200; i++) await publisher.PublishAsync("amq.fanout", "", null, small, cancellationToken: ct);
            }, ct);
            await Task.Delay(TimeSpan.FromMilliseconds(200), ct);
            relay.Release();
            await Task.WhenAll([.. larges, smalls]);
        }

        // Frames after the 8-byte protocol header, channel 0 (the connection's) left out.
        var sent = new ReadOnlySequence<byte>(relay.ClientToServer()[8..]);
        var open = new Dictionary<ushort, ulong>(); // channel -> body bytes still due
        var interleaved = 0;
        while (AmqpFrameReader.TryReadFrame(ref sent, uint.MaxValue, out var frame))
        {
            if (frame.Channel == 0) continue;
            switch (frame.Type)
            {
                case FrameType.Method when AmqpFrameReader.ReadCommandId(frame) == Prewire.Framing.Internal.Methods.AmqpCommandId.BasicPublish:
                    Assert.False(open.ContainsKey(frame.Channel), $"channel {frame.Channel} started a publish inside another one's content");
                    // A publish on another channel while a large body is still due: the interleaving.
                    if (open.Count > 0) interleaved++;
                    open[frame.Channel] = ulong.MaxValue;
                    break;
                case FrameType.ContentHeader:
                    open[frame.Channel] = AmqpFrameReader.ReadContentHeader(frame).BodySize;
                    break;
                case FrameType.ContentBody:
                    open[frame.Channel] -= (ulong)frame.Payload.Length;
                    break;
            }
            if (open.TryGetValue(frame.Channel, out var due) && due == 0) open.Remove(frame.Channel);
        }
        Assert.Empty(open);
        Assert.True(interleaved > 0, "no publish went between the frames of a large body");
    }
}
