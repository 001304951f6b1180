using System.Buffers;
using System.Diagnostics;
using System.IO.Pipelines;
using System.Net;
using System.Net.Sockets;
using Prewire.Framing;
using Prewire.Framing.Internal;
using Prewire.Framing.Internal.Methods;
using Prewire.Testing;
using Prewire.Transport.Internal;

namespace Prewire.Transport;

/// <summary>Real sockets on loopback: a test server in the test, and the throwaway RabbitMQ broker.</summary>
public sealed class SocketConnectionTests
{
    public static TheoryData<bool> Schedulings => new(false, true);

    public static TheoryData<bool> ReceiveThreads => new(true, false);

    [Fact]
    public async Task What_the_receiving_thread_flushes_is_sent_before_its_flush_returns()
    {
        // A read's acks: written and flushed where the read was handed out, sent there, no pool worker woken.
        using var server = new EchoServer();
        var options = new SocketConnectionOptions { MaxWriteBufferSize = 1024, ReceiveOnOwnThread = true };
        await using var connection = await SocketConnection.ConnectAsync("127.0.0.1", server.Port, options, cancellationToken: TestContext.Current.CancellationToken);
        var flushed = FlushOnReceivingThreadAsync(connection, new byte[4096]);

        // The server speaks first: a byte the client sent would have its send loop busy on a pool thread
        // until that send returns, and a flush meeting a busy loop is left to it (under load, a CI run saw
        // that). The point is the idle loop's.
        await server.SendAsync(new byte[] { 1 });

        // 4 KiB is past the 1 KiB threshold: a flush whose send loop runs later returns pending.
        Assert.True(await flushed, "4 KiB flushed on the receiving thread were still unsent when the flush returned");
    }

    // As ThreadResumedOnAsync: where the read resumes is the point, so outside the test method.
    private static async Task<bool> FlushOnReceivingThreadAsync(SocketConnection connection, byte[] bytes)
    {
        var result = await connection.Input.ReadAsync().ConfigureAwait(false);
        connection.Input.AdvanceTo(result.Buffer.End);
        Assert.Equal("Prewire receive", Thread.CurrentThread.Name);
        connection.Output.Write(bytes);
        var flush = connection.Output.FlushAsync();
        var sent = flush.IsCompleted;
        await flush.ConfigureAwait(false);
        await Task.Yield(); // off the receiving thread before the connection is disposed
        return sent;
    }

    [Theory]
    [MemberData(nameof(ReceiveThreads))]
    public async Task What_reads_Input_runs_on_the_connections_own_thread_unless_told_otherwise(bool ownThread)
    {
        using var server = new EchoServer();
        await using var connection = await SocketConnection.ConnectAsync("127.0.0.1", server.Port, new SocketConnectionOptions { ReceiveOnOwnThread = ownThread }, cancellationToken: TestContext.Current.CancellationToken);
        var resumed = ThreadResumedOnAsync(connection.Input);

        await connection.Output.WriteAsync(new byte[] { 1, 2, 3 }, TestContext.Current.CancellationToken);
        var (name, poolThread) = await resumed;

        Assert.Equal(ownThread ? ("Prewire receive", false) : (".NET TP Worker", true), (name, poolThread));
    }

    // Outside the test method: xunit keeps test methods on their context, and the point is where a bare continuation runs.
    // Call before anything is sent: the read must be waiting when the bytes come.
    private static async Task<(string? Name, bool PoolThread)> ThreadResumedOnAsync(PipeReader input)
    {
        var read = input.ReadAsync();
        Assert.False(read.IsCompleted);
        var result = await read.ConfigureAwait(false);
        var thread = (Thread.CurrentThread.Name, Thread.CurrentThread.IsThreadPoolThread);
        input.AdvanceTo(result.Buffer.End);
        await Task.Yield(); // off the receiving thread before the connection is disposed
        return thread;
    }

    [Theory]
    [MemberData(nameof(ReceiveThreads))]
    public async Task A_peer_that_never_answers_fails_after_the_connect_timeout(bool ownThread)
    {
        using var silent = new UnansweredPort();
        var options = new SocketConnectionOptions { ConnectTimeout = TimeSpan.FromSeconds(1), ReceiveOnOwnThread = ownThread };
        var started = Stopwatch.GetTimestamp();

        var e = await Assert.ThrowsAsync<IOException>(() => SocketConnection.ConnectAsync("127.0.0.1", silent.Port, options, cancellationToken: TestContext.Current.CancellationToken));

        Assert.Equal($"cannot connect to 127.0.0.1:{silent.Port}: no answer within 1 s", e.Message);
        Assert.InRange(Stopwatch.GetElapsedTime(started), TimeSpan.FromSeconds(0.9), TimeSpan.FromSeconds(5));
    }

    // An infinite timeout (-1 ms) waits for the caller: not a deadline already past.
    [Theory]
    [InlineData(true, 30_000)]
    [InlineData(false, 30_000)]
    [InlineData(true, -1)]
    [InlineData(false, -1)]
    public async Task A_cancelled_connect_stops_without_waiting_for_its_timeout(bool ownThread, int timeoutMilliseconds)
    {
        using var silent = new UnansweredPort();
        var options = new SocketConnectionOptions { ConnectTimeout = TimeSpan.FromMilliseconds(timeoutMilliseconds), ReceiveOnOwnThread = ownThread };
        using var cancel = CancellationTokenSource.CreateLinkedTokenSource(TestContext.Current.CancellationToken);
        cancel.CancelAfter(TimeSpan.FromMilliseconds(300));
        var started = Stopwatch.GetTimestamp();

        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => SocketConnection.ConnectAsync("127.0.0.1", silent.Port, options, cancellationToken: cancel.Token));

        Assert.InRange(Stopwatch.GetElapsedTime(started), TimeSpan.FromSeconds(0.2), TimeSpan.FromSeconds(5));
    }

    [Theory]
    [MemberData(nameof(Schedulings))]
    public async Task Bytes_written_to_Output_come_back_through_an_echo_server_on_Input(bool inline)
    {
        using var server = new EchoServer();
        await using var connection = await SocketConnection.ConnectAsync("127.0.0.1", server.Port, new SocketConnectionOptions { UnsafePreferInlineScheduling = inline }, cancellationToken: TestContext.Current.CancellationToken);
        var payload = new byte[1024 * 1024];
        Random.Shared.NextBytes(payload);

        var writing = Task.Run(async () =>
        {
            for (var offset = 0; offset < payload.Length; offset += 100_000)
            {
                await connection.Output.WriteAsync(payload.AsMemory(offset, Math.Min(100_000, payload.Length - offset)), TestContext.Current.CancellationToken);
            }
        }, TestContext.Current.CancellationToken);
        var received = await ReadExactlyAsync(connection.Input, payload.Length);
        await writing;

        Assert.Equal(payload, received);
    }

    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public async Task A_megabyte_written_at_once_arrives_whole_from_array_or_native_blocks(bool nativeBlocks)
    {
        // 64 blocks flushed together: sent 8 to a vectored call from array blocks, one by one from native ones.
        using var pool = nativeBlocks ? new NativeMemoryPool() : null;
        using var server = new EchoServer();
        var options = new SocketConnectionOptions();
        if (pool is not null) options.MemoryPool = pool;
        await using var connection = await SocketConnection.ConnectAsync("127.0.0.1", server.Port, options, cancellationToken: TestContext.Current.CancellationToken);
        var payload = new byte[1024 * 1024];
        Random.Shared.NextBytes(payload);

        var writing = connection.Output.WriteAsync(payload, TestContext.Current.CancellationToken).AsTask();
        var received = await ReadExactlyAsync(connection.Input, payload.Length);
        await writing;

        Assert.Equal(payload, received);
    }

    [Fact]
    public async Task A_direct_send_goes_out_from_its_own_memory_after_what_was_flushed_before_it()
    {
        using var server = new EchoServer();
        var ct = TestContext.Current.CancellationToken;
        await using var connection = await SocketConnection.ConnectAsync("127.0.0.1", server.Port, cancellationToken: ct);
        var payload = new byte[1000 + 300_000 + 500];
        Random.Shared.NextBytes(payload);
        // 30 segments: more than the runtime's vectored send takes without allocating, so on Linux one sendmsg of our own.
        var direct = FrameTestKit.Segmented(payload.AsMemory(1000, 300_000), 10_000);

        await connection.Output.WriteAsync(payload.AsMemory(0, 1000), ct);
        await connection.SendDirectAsync(new DirectSend(), direct, [100_000, 200_000]);
        await connection.Output.WriteAsync(payload.AsMemory(301_000), ct);
        var received = await ReadExactlyAsync(connection.Input, payload.Length);

        Assert.Equal(payload, received);
    }

    [Fact]
    public void On_64_bit_Linux_sends_of_many_segments_take_one_sendmsg_call_of_our_own()
    {
        Assert.Equal(OperatingSystem.IsLinux() && Environment.Is64BitProcess, LinuxSendMsg.IsAvailable);
    }

    [Fact]
    public async Task A_direct_send_on_an_aborted_connection_fails_naming_the_endpoint()
    {
        using var server = new EchoServer();
        await using var connection = await SocketConnection.ConnectAsync("127.0.0.1", server.Port, cancellationToken: TestContext.Current.CancellationToken);
        connection.Abort(null);

        var error = await Assert.ThrowsAsync<IOException>(async () =>
            await connection.SendDirectAsync(new DirectSend(), new ReadOnlySequence<byte>(new byte[100]), []));
        Assert.Contains($"127.0.0.1:{server.Port}", error.Message, StringComparison.Ordinal);
    }

    [Theory]
    [MemberData(nameof(ReceiveThreads))]
    public async Task An_unreachable_peer_fails_with_the_endpoint_in_the_message_once(bool ownThread)
    {
        using var refusing = new Prewire.Testing.RefusingPort();
        var port = refusing.Port;
        var options = new SocketConnectionOptions { ReceiveOnOwnThread = ownThread };
        var e = await Assert.ThrowsAsync<IOException>(() => SocketConnection.ConnectAsync("127.0.0.1", port, options, cancellationToken: TestContext.Current.CancellationToken));
        Assert.Equal($"cannot connect to 127.0.0.1:{port}: Connection refused", e.Message);
    }

    [Fact]
    public async Task When_the_peer_closes_Input_completes_cleanly()
    {
        using var server = new EchoServer();
        await using var connection = await SocketConnection.ConnectAsync("127.0.0.1", server.Port, cancellationToken: TestContext.Current.CancellationToken);
        await server.CloseClientAsync();

        var result = await connection.Input.ReadAsync(TestContext.Current.CancellationToken);
        Assert.True(result.IsCompleted);
    }

    [Fact]
    public async Task Abort_completes_Input_with_the_reason()
    {
        using var server = new EchoServer();
        await using var connection = await SocketConnection.ConnectAsync("127.0.0.1", server.Port, cancellationToken: TestContext.Current.CancellationToken);

        connection.Abort(new InvalidOperationException("heartbeat missed"));

        var e = await Assert.ThrowsAsync<InvalidOperationException>(async () => await connection.Input.ReadAsync(TestContext.Current.CancellationToken));
        Assert.Equal("heartbeat missed", e.Message);
    }

    [Theory]
    [MemberData(nameof(ReceiveThreads))]
    public async Task Flush_waits_while_the_peer_does_not_read_then_resumes(bool ownThread)
    {
        // The pipe's threshold holds the writer back, usually at the first chunk, before the socket is full
        // (a socket filled is the next test's).
        using var server = new EchoServer(echo: false);
        var options = new SocketConnectionOptions { MaxWriteBufferSize = 64 * 1024, ReceiveOnOwnThread = ownThread };
        await using var connection = await SocketConnection.ConnectAsync("127.0.0.1", server.Port, options, cancellationToken: TestContext.Current.CancellationToken);
        var chunk = new byte[64 * 1024];

        ValueTask<FlushResult> flush = default;
        var written = 0L;
        for (var i = 0; i < 2000; i++)
        {
            flush = connection.Output.WriteAsync(chunk, TestContext.Current.CancellationToken);
            written += chunk.Length;
            if (!flush.IsCompleted) break;
        }
        Assert.False(flush.IsCompleted, $"wrote {written} bytes to a peer that reads nothing and was never held back");

        server.StartDraining();
        await flush.AsTask().WaitAsync(TimeSpan.FromSeconds(10), TestContext.Current.CancellationToken);
    }

    [Fact]
    public async Task A_socket_left_to_the_engine_when_full_still_brings_back_every_byte()
    {
        // The send that finds the socket full goes the engine's way; receiving moves to the engine with it.
        using var server = new EchoServer(hold: true);
        var options = new SocketConnectionOptions { MaxWriteBufferSize = 64 * 1024, ReceiveOnOwnThread = true };
        await using var connection = await SocketConnection.ConnectAsync("127.0.0.1", server.Port, options, cancellationToken: TestContext.Current.CancellationToken);
        var chunk = new byte[64 * 1024];
        Random.Shared.NextBytes(chunk);
        // Written until a flush stays waiting: the kernel's buffers on both sides are full by then.
        Task flush;
        var written = 0;
        do
        {
            flush = connection.Output.WriteAsync(chunk, TestContext.Current.CancellationToken).AsTask();
            written += chunk.Length;
            Assert.True(written < 512 * 1024 * 1024, $"wrote {written} bytes to a peer that reads nothing and was never held back");
        }
        while (await Task.WhenAny(flush, Task.Delay(300, TestContext.Current.CancellationToken)) == flush);

        server.StartDraining();
        var received = await ReadExactlyAsync(connection.Input, written).WaitAsync(TimeSpan.FromSeconds(30), TestContext.Current.CancellationToken);
        await flush;
        Assert.Equal(written, received.Length);
        for (var offset = 0; offset < written; offset += chunk.Length) Assert.True(chunk.AsSpan().SequenceEqual(received.AsSpan(offset, chunk.Length)), $"bytes at {offset} differ");

        // The thread leaves once a receive through the engine has to wait: until then one that completes at once
        // still resumes the reader there (the suite, run alone beside a NativeAOT publish, saw it), so a few
        // round trips may pass first.
        var onPool = false;
        for (var attempt = 0; attempt < 50 && !onPool; attempt++)
        {
            var resumed = ThreadResumedOnAsync(connection.Input);
            await connection.Output.WriteAsync(new byte[] { 1, 2, 3 }, TestContext.Current.CancellationToken);
            onPool = (await resumed).PoolThread;
            if (!onPool) await Task.Delay(20, TestContext.Current.CancellationToken);
        }
        Assert.True(onPool, "receiving stayed on the connection's thread after the engine took the socket");
    }

    [Fact]
    public async Task Close_sends_everything_flushed_then_ends_the_stream()
    {
        using var server = new EchoServer(echo: false);
        var connection = await SocketConnection.ConnectAsync("127.0.0.1", server.Port, cancellationToken: TestContext.Current.CancellationToken);
        server.StartDraining();
        await connection.Output.WriteAsync(new byte[300_000], TestContext.Current.CancellationToken);

        await connection.CloseAsync(TimeSpan.FromSeconds(2));

        Assert.Equal(300_000, await server.DrainedUntilEndOfStream.WaitAsync(TimeSpan.FromSeconds(10), TestContext.Current.CancellationToken));
    }

    [Fact]
    public async Task Talks_to_the_real_broker_the_protocol_header_brings_connection_start()
    {
        var broker = TestBroker.Uri;
        await using var connection = await SocketConnection.ConnectAsync(broker.Host, broker.Port, cancellationToken: TestContext.Current.CancellationToken);

        AmqpFrameWriter.WriteProtocolHeader(connection.Output);
        await connection.Output.FlushAsync(TestContext.Current.CancellationToken);

        while (true)
        {
            var result = await connection.Input.ReadAsync(TestContext.Current.CancellationToken);
            var buffer = result.Buffer;
            if (AmqpFrameReader.TryReadFrame(ref buffer, AmqpConstants.MinFrameMax, out var frame))
            {
                var start = AmqpFrameReader.ReadMethod<ConnectionStart>(frame);
                connection.Input.AdvanceTo(buffer.Start);
                Assert.Equal((0, 9), (start.VersionMajor, start.VersionMinor));
                Assert.Contains("PLAIN", System.Text.Encoding.UTF8.GetString(start.Mechanisms), StringComparison.Ordinal);
                return;
            }
            Assert.False(result.IsCompleted, "the broker closed the connection before connection.start");
            connection.Input.AdvanceTo(buffer.Start, buffer.End);
        }
    }

    private static async Task<byte[]> ReadExactlyAsync(PipeReader input, int length)
    {
        var received = new ArrayBufferWriter<byte>(length);
        while (received.WrittenCount < length)
        {
            var result = await input.ReadAsync();
            foreach (var segment in result.Buffer) received.Write(segment.Span);
            input.AdvanceTo(result.Buffer.End);
            if (result.IsCompleted) break;
        }
        return received.WrittenSpan.ToArray();
    }

    /// <summary>A one-client loopback server: echoes, or holds bytes unread until told to drain.</summary>
    private sealed class EchoServer : IDisposable
    {
        private readonly TcpListener _listener = new(IPAddress.Loopback, 0);
        private readonly Task<Socket> _accepted;
        private readonly TaskCompletionSource _drain = new(TaskCreationOptions.RunContinuationsAsynchronously);
        private readonly TaskCompletionSource<long> _drained = new(TaskCreationOptions.RunContinuationsAsynchronously);

        /// <param name="echo">Echo what comes (else read it and keep the count).</param>
        /// <param name="hold">Read nothing until <see cref="StartDraining"/> (always so without echo).</param>
        public EchoServer(bool echo = true, bool hold = false)
        {
            _listener.Start();
            _accepted = _listener.AcceptSocketAsync();
            _ = echo ? EchoAsync(hold) : DrainAsync();
        }

        public int Port => ((IPEndPoint)_listener.LocalEndpoint).Port;

        public Task<long> DrainedUntilEndOfStream => _drained.Task;

        public void StartDraining() => _drain.TrySetResult();

        public async Task CloseClientAsync() => (await _accepted).Shutdown(SocketShutdown.Both);

        public async Task SendAsync(byte[] bytes) => await (await _accepted).SendAsync(bytes, SocketFlags.None);

        public void Dispose()
        {
            _listener.Stop();
            if (_accepted.IsCompletedSuccessfully) _accepted.Result.Dispose();
        }

        private async Task EchoAsync(bool hold)
        {
            var socket = await _accepted;
            if (hold)
            {
                socket.ReceiveBufferSize = 64 * 1024;
                await _drain.Task;
            }
            var buffer = new byte[65536];
            try
            {
                while (true)
                {
                    var n = await socket.ReceiveAsync(buffer, SocketFlags.None);
                    if (n == 0) return;
                    await socket.SendAsync(buffer.AsMemory(0, n), SocketFlags.None);
                }
            }
            catch (Exception e) when (e is SocketException or ObjectDisposedException)
            {
            }
        }

        private async Task DrainAsync()
        {
            var socket = await _accepted;
            socket.ReceiveBufferSize = 64 * 1024;
            await _drain.Task;
            var buffer = new byte[65536];
            long total = 0;
            try
            {
                while (true)
                {
                    var n = await socket.ReceiveAsync(buffer, SocketFlags.None);
                    if (n == 0) break;
                    total += n;
                }
            }
            catch (Exception e) when (e is SocketException or ObjectDisposedException)
            {
            }
            _drained.TrySetResult(total);
        }
    }
}
