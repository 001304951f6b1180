using System.Buffers;
using System.Net;
using System.Net.Sockets;
using Prewire.Framing;

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
        using var relay = new RecordingRelay(TestBroker.AmqpUri.Port);
        var uri = AmqpUri.Parse($"amqp://guest:guest@127.0.0.1:{relay.Port}/");
        await using (var publisher = await AmqpPublisher.ConnectAsync(new AmqpPublisherOptions { Uri = uri, ClientName = "prewire-tests", Channels = 4 }, ct))
        {
            var large = new byte[1 << 20];
            var small = new byte[64];
            // Two large bodies and a stream of small ones, all at once; messages go to amq.fanout with
            // nothing bound, so the broker drops them after its confirm.
            var larges = Enumerable.Range(0, 2).Select(_ => publisher.PublishAsync("amq.fanout", "", null, large, cancellationToken: ct).AsTask());
            var smalls = Task.Run(async () =>
            {
                for (var i = 0; i < 200; i++) await publisher.PublishAsync("amq.fanout", "", null, small, cancellationToken: ct);
            }, ct);
            await Task.WhenAll([.. larges, smalls]);
        }

        // Frames after the 8-byte protocol header, channel 0 (the connection's) left out.
        var sent = new ReadOnlySequence<byte>(relay.ClientToBroker()[8..]);
        var open = new Dictionary<ushort, ulong>(); // channel -> body bytes still due
        var interleaved = 0;
        while (AmqpFrameReader.TryReadFrame(ref sent, uint.MaxValue, out var frame))
        {
            if (frame.Channel == 0) continue;
            switch (frame.Type)
            {
                case FrameType.Method when AmqpFrameReader.ReadCommandId(frame) == Prewire.Framing.Methods.AmqpCommandId.BasicPublish:
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

    /// <summary>A TCP relay on loopback to one port, keeping what the client sent.</summary>
    private sealed class RecordingRelay : IDisposable
    {
        private readonly TcpListener _listener = new(IPAddress.Loopback, 0);
        private readonly MemoryStream _clientToBroker = new();
        private readonly Task _relaying;

        public RecordingRelay(int brokerPort)
        {
            _listener.Start();
            _relaying = RelayAsync(brokerPort);
        }

        public int Port => ((IPEndPoint)_listener.LocalEndpoint).Port;

        public byte[] ClientToBroker()
        {
            // The client closed its connection; the copy ends when the relay sees that.
            _relaying.Wait(TimeSpan.FromSeconds(10));
            lock (_clientToBroker) return _clientToBroker.ToArray();
        }

        private async Task RelayAsync(int brokerPort)
        {
            using var client = await _listener.AcceptTcpClientAsync();
            using var broker = new TcpClient();
            await broker.ConnectAsync(IPAddress.Loopback, brokerPort);
            var up = CopyAsync(client.GetStream(), broker.GetStream(), _clientToBroker);
            var down = CopyAsync(broker.GetStream(), client.GetStream(), record: null);
            await Task.WhenAny(up, down);
        }

        private static async Task CopyAsync(NetworkStream from, NetworkStream to, MemoryStream? record)
        {
            var buffer = new byte[64 * 1024];
            try
            {
                int read;
                while ((read = await from.ReadAsync(buffer)) > 0)
                {
                    if (record is not null)
                    {
                        lock (record) record.Write(buffer, 0, read);
                    }
                    await to.WriteAsync(buffer.AsMemory(0, read));
                }
            }
            catch (Exception e) when (e is IOException or ObjectDisposedException)
            {
                return;
            }
            to.Socket.Shutdown(SocketShutdown.Send);
        }

        public void Dispose() => _listener.Dispose();
    }
}
