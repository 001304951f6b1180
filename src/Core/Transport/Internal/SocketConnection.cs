using System.Buffers;
using System.Diagnostics.CodeAnalysis;
using System.IO.Pipelines;
using System.Net;
using System.Net.Security;
using System.Net.Sockets;
using System.Security.Authentication;

namespace Prewire.Transport.Internal;

/// <summary>
/// A TCP connection as a duplex pipe: <see cref="Input"/> is what the peer sent, <see cref="Output"/>
/// what goes to it. One loop moves received bytes into <see cref="Input"/>, another sends what is
/// flushed to <see cref="Output"/>; both respect the back-pressure thresholds in
/// <see cref="SocketConnectionOptions"/>. Failures carry the endpoint in their message. Over TLS the
/// loops read and write an <see cref="SslStream"/> on the socket instead of the socket itself.
/// </summary>
internal sealed partial class SocketConnection : IDuplexPipe, IAsyncDisposable
{
    private readonly Socket _socket;
    private readonly SslStream? _tls;
    private readonly Pipe _input;
    private readonly Pipe _output;
    private readonly Task _receiving;
    private readonly Task _sending;
    private readonly Queue<DirectSend> _directSends = new();
    private bool _sendingEnded;
    private int _aborted;
    private Exception? _abortReason;

    private SocketConnection(Socket socket, SslStream? tls, string endpoint, SocketConnectionOptions options, bool ownThread = false)
    {
        _socket = socket;
        _tls = tls;
        Endpoint = endpoint;
        var scheduler = options.UnsafePreferInlineScheduling ? PipeScheduler.Inline : PooledThreadPoolScheduler.Instance;
        var segmentSize = Math.Min(options.MemoryPool.MaxBufferSize, BlockMemoryPool.BlockSize);
        // What reads Input runs on the thread that received the bytes, whatever the option says: the receive
        // loop is already a thread-pool continuation, and a hop of its own for every read (a work item, often a
        // worker woken) cost the Consumer about a tenth of its CPU a message (docs/benchmarks.md).
        _input = new Pipe(new PipeOptions(options.MemoryPool, readerScheduler: PipeScheduler.Inline, writerScheduler: scheduler, minimumSegmentSize: segmentSize,
            pauseWriterThreshold: options.MaxReadBufferSize, resumeWriterThreshold: options.MaxReadBufferSize / 2, useSynchronizationContext: false));
        // A connection with a receive thread is made on that thread: what it flushes, it sends itself.
        var sendScheduler = ownThread ? new ReceiveThreadScheduler(Thread.CurrentThread, scheduler) : scheduler;
        _output = new Pipe(new PipeOptions(options.MemoryPool, readerScheduler: sendScheduler, writerScheduler: scheduler, minimumSegmentSize: segmentSize,
            pauseWriterThreshold: options.MaxWriteBufferSize, resumeWriterThreshold: options.MaxWriteBufferSize / 2, useSynchronizationContext: false));
        _receiving = ownThread ? (_receiveEnded = new(TaskCreationOptions.RunContinuationsAsynchronously)).Task : ReceiveAsync();
        _sending = SendAsync();
    }

    /// <summary>The TLS stream, when there is one; the switch is read here so a build without TLS trims every use.</summary>
    private SslStream? Tls => Amqp.Internal.AmqpFeatures.TlsIsSupported ? _tls : null;

    /// <summary>host:port of the peer, for messages.</summary>
    public string Endpoint { get; }

    /// <summary>What the peer sent. Completes with an <see cref="IOException"/> naming the endpoint when the connection fails.</summary>
    public PipeReader Input => _input.Reader;

    /// <summary>What to send. <c>FlushAsync</c> waits while more than <see cref="SocketConnectionOptions.MaxWriteBufferSize"/> is unsent.</summary>
    public PipeWriter Output => _output.Writer;

    /// <summary>
    /// Connects to <paramref name="host"/>:<paramref name="port"/>, then, given <paramref name="tls"/>, shakes hands over TLS,
    /// both within <paramref name="timeout"/> (<see cref="SocketConnectionOptions.ConnectTimeout"/> when null).
    /// </summary>
    /// <exception cref="IOException">The peer could not be reached or did not complete the TLS handshake in time; the message names it.</exception>
    /// <exception cref="AuthenticationException">The TLS handshake failed (<paramref name="tls"/>'s callback knows why when the certificate was refused).</exception>
    public static async Task<SocketConnection> ConnectAsync(string host, int port, SocketConnectionOptions? options = null, SslClientAuthenticationOptions? tls = null, TimeSpan? timeout = null, CancellationToken cancellationToken = default)
    {
        ArgumentException.ThrowIfNullOrEmpty(host);
        options ??= new SocketConnectionOptions();
        var limit = timeout ?? options.ConnectTimeout;
        var endpoint = $"{host}:{port}";
        if (tls is null && options.ReceiveOnOwnThread && LinuxSendMsg.IsAvailable) return await ConnectOnOwnThreadAsync(host, port, endpoint, options, limit, cancellationToken).ConfigureAwait(false);
        var socket = new Socket(SocketType.Stream, ProtocolType.Tcp) { NoDelay = options.NoDelay };
        // One timer for the connect and the TLS handshake, so a timeout says which of the two the peer never finished.
        using var timer = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken);
        timer.CancelAfter(limit);
        try
        {
            // An address literal needs no resolver (which would load System.Net.NameResolution and its telemetry).
            EndPoint remote = IPAddress.TryParse(host, out var address) ? new IPEndPoint(address, port) : new DnsEndPoint(host, port);
            await socket.ConnectAsync(remote, timer.Token).ConfigureAwait(false);
        }
        catch (Exception e) when (e is SocketException or OperationCanceledException)
        {
            socket.Dispose();
            if (e is OperationCanceledException && cancellationToken.IsCancellationRequested) throw;
            throw CannotConnect(endpoint, e, limit);
        }
        if (tls is null || !Amqp.Internal.AmqpFeatures.TlsIsSupported) return new SocketConnection(socket, null, endpoint, options);
        var stream = new SslStream(new NetworkStream(socket, ownsSocket: true));
        try
        {
            await stream.AuthenticateAsClientAsync(tls, timer.Token).ConfigureAwait(false);
        }
        catch (Exception e) when (e is AuthenticationException or IOException)
        {
            // The peer hanging up mid-handshake (a plain port) is a failed handshake too, not a lost connection.
            await stream.DisposeAsync().ConfigureAwait(false);
            throw e as AuthenticationException ?? new AuthenticationException(e.Message, e);
        }
        catch (OperationCanceledException e) when (!cancellationToken.IsCancellationRequested)
        {
            // Connected, and the peer never finished its side (a port that accepts and says nothing).
            await stream.DisposeAsync().ConfigureAwait(false);
            throw new IOException($"{endpoint} did not complete the TLS handshake within {limit.TotalSeconds:0.#} s", e);
        }
        catch
        {
            await stream.DisposeAsync().ConfigureAwait(false);
            throw;
        }
        return new SocketConnection(socket, stream, endpoint, options);
    }

    private static IOException CannotConnect(string endpoint, Exception failure, TimeSpan timeout)
    {
        var reason = failure is SocketException socketError ? socketError.Message : $"no answer within {timeout.TotalSeconds:0.#} s";
        return new IOException($"cannot connect to {endpoint}: {reason}", failure);
    }

    /// <summary>
    /// Orderly close: sends what was already flushed, shuts the sending side down, then waits for
    /// the peer to close its side before releasing the socket, and for the receive loop to end,
    /// <paramref name="timeout"/> for both waits together.
    /// </summary>
    public async Task CloseAsync(TimeSpan timeout)
    {
        await _output.Writer.CompleteAsync().ConfigureAwait(false);
        await _sending.ConfigureAwait(false);
        try
        {
            // TLS says goodbye in a close_notify alert before the socket's own.
            if (Tls is { } tls) await tls.ShutdownAsync().ConfigureAwait(false);
            _socket.Shutdown(SocketShutdown.Send);
        }
        catch (Exception e) when (e is SocketException or IOException or ObjectDisposedException)
        {
            // Already gone: nothing left to close politely.
        }
        // One deadline for both waits: a receive loop that runs the reader inline may be held by a
        // handler for longer than the close may take; it ends when the handler returns, and
        // DisposeAsync waits for that.
        var deadline = Task.Delay(timeout);
        await Task.WhenAny(_receiving, deadline).ConfigureAwait(false);
        Abort(null);
        await Task.WhenAny(_receiving, deadline).ConfigureAwait(false);
    }

    /// <summary>
    /// Tears the connection down at once: unsent data is dropped, <see cref="Input"/> completes (with
    /// <paramref name="reason"/>, when given) and <see cref="Output"/> refuses further writes.
    /// </summary>
    public void Abort(Exception? reason)
    {
        if (Interlocked.Exchange(ref _aborted, 1) != 0) return;
        // The receive loop alone completes Input (a PipeWriter is not thread-safe): it reads the
        // reason once the disposed socket or the cancelled flush wakes it.
        Volatile.Write(ref _abortReason, reason);
        _socket.Dispose();
        _tls?.Dispose();
        _input.Writer.CancelPendingFlush();
        _output.Reader.CancelPendingRead();
    }

    /// <summary>
    /// Sends <paramref name="send"/>'s bytes from their own memory, after everything flushed to
    /// <see cref="Output"/> before this call and a part at a time, so that what is flushed meanwhile
    /// may go out between its parts. Completes when the last part is sent, or fails with an
    /// <see cref="IOException"/> when the connection ends first; either way the send loop is done
    /// with the memory by then.
    /// </summary>
    internal ValueTask SendDirectAsync(DirectSend send, in ReadOnlySequence<byte> data, List<long> partEnds)
    {
        var sent = send.Prepare(data, partEnds);
        lock (_directSends)
        {
            if (_sendingEnded)
            {
                send.Complete(new IOException($"connection to {Endpoint} is closed"));
                return sent;
            }
            _directSends.Enqueue(send);
        }
        // Wakes the send loop if it waits for the pipe; a wake it no longer needs costs one empty read.
        _output.Reader.CancelPendingRead();
        return sent;
    }

    /// <inheritdoc />
    public async ValueTask DisposeAsync()
    {
        Abort(null);
        await Task.WhenAll(_receiving, _sending).ConfigureAwait(false);
    }

    private async Task ReceiveAsync()
    {
        var writer = _input.Writer;
        Exception? error = null;
        try
        {
            while (true)
            {
                var memory = writer.GetMemory(4096);
                var received = Tls is { } tls
                    ? await tls.ReadAsync(memory).ConfigureAwait(false)
                    : await _socket.ReceiveAsync(memory, SocketFlags.None).ConfigureAwait(false);
                if (received == 0) break; // the peer closed its side
                writer.Advance(received);
                var flush = await writer.FlushAsync().ConfigureAwait(false);
                if (flush.IsCompleted || flush.IsCanceled) break; // the application stopped reading, or an abort
            }
        }
        catch (Exception e) when (e is SocketException or ObjectDisposedException or IOException)
        {
            error = e;
        }
        await writer.CompleteAsync(ReceiveFailure(error)).ConfigureAwait(false);
    }

    // Why receiving ended, for Input's reader: the abort's reason, the socket's failure, or none (the peer closed).
    private Exception? ReceiveFailure(Exception? failure)
    {
        if (Volatile.Read(ref _aborted) != 0) return Volatile.Read(ref _abortReason);
        return failure is null ? null : new IOException($"connection to {Endpoint} failed while receiving: {failure.Message}", failure);
    }

    private async Task SendAsync()
    {
        var reader = _output.Reader;
        using var sender = new SocketSender(_receiveEnded is not null ? EngineTakesOver : null);
        using var tls = Tls is { } stream ? new TlsWriter(stream) : null;
        DirectSend? direct = null;
        Exception? error = null;
        try
        {
            while (true)
            {
                ReadResult result = default;
                var read = true;
                // Whatever was flushed before a direct send was queued goes before it: the two may share a channel.
                if (direct is not null || TryDequeueDirect(out direct)) read = reader.TryRead(out result);
                else result = await reader.ReadAsync().ConfigureAwait(false);
                if (Volatile.Read(ref _aborted) != 0) break; // a cancelled read is an abort or a direct send's wake-up
                if (read)
                {
                    var buffer = result.Buffer;
                    if (tls is not null)
                    {
                        await tls.WriteAsync(buffer).ConfigureAwait(false);
                        await tls.FlushAsync().ConfigureAwait(false);
                        buffer = default;
                    }
                    while (!buffer.IsEmpty) buffer = buffer.Slice(await sender.SendAsync(_socket, buffer).ConfigureAwait(false));
                    reader.AdvanceTo(result.Buffer.End);
                    if (result.IsCompleted) break;
                }
                if (direct is null) continue;
                var part = direct.TakePart();
                if (tls is not null)
                {
                    await tls.WriteAsync(part).ConfigureAwait(false);
                    await tls.FlushAsync().ConfigureAwait(false);
                    part = default;
                }
                while (!part.IsEmpty) part = part.Slice(await sender.SendAsync(_socket, part).ConfigureAwait(false));
                if (!direct.IsDone) continue;
                direct.Complete(null);
                direct = null;
            }
        }
        catch (Exception e) when (e is SocketException or ObjectDisposedException or IOException)
        {
            error = new IOException($"connection to {Endpoint} failed while sending: {e.Message}", e);
            // The receive side learns of it too, so a reader waiting on Input does not wait forever.
            Abort(error);
        }
        EndDirectSends(direct, error);
        await reader.CompleteAsync(error).ConfigureAwait(false);
    }

    private bool TryDequeueDirect([NotNullWhen(true)] out DirectSend? direct)
    {
        lock (_directSends) return _directSends.TryDequeue(out direct);
    }

    /// <summary>No send goes out after the loop ends: the one it was in and those queued fail, and later ones fail at once.</summary>
    private void EndDirectSends(DirectSend? current, Exception? error)
    {
        DirectSend[] pending;
        lock (_directSends)
        {
            _sendingEnded = true;
            pending = [.. _directSends];
            _directSends.Clear();
        }
        if (pending.Length == 0 && current is null) return;
        var failure = error ?? new IOException($"connection to {Endpoint} was closed before a send completed");
        current?.Complete(failure);
        foreach (var send in pending) send.Complete(failure);
    }
}
