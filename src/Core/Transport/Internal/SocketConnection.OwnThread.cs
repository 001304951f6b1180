using System.Net;
using System.Net.Sockets;

namespace Prewire.Transport.Internal;

/// <summary>
/// A plain connection kept away from the runtime's socket engine (<see cref="SocketConnectionOptions.ReceiveOnOwnThread"/>):
/// connected, then received on a thread of its own blocked in <c>recv</c>, and sent to with direct
/// non-blocking calls. The engine's way costs every read a wake-up of its thread and then of a pool worker,
/// and it wakes for events nobody waits on; here the kernel wakes the one thread that reads.
/// </summary>
internal sealed partial class SocketConnection
{
    private readonly TaskCompletionSource? _receiveEnded;
    private volatile bool _engineWatches;

    private static async Task<SocketConnection> ConnectOnOwnThreadAsync(string host, int port, string endpoint, SocketConnectionOptions options, TimeSpan limit, CancellationToken cancellationToken)
    {
        var connected = new TaskCompletionSource<SocketConnection>(TaskCreationOptions.RunContinuationsAsynchronously);
        using var timeout = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken);
        timeout.CancelAfter(limit);
        var token = timeout.Token;
        new Thread(() => ConnectThenReceive(host, port, endpoint, options, limit, connected, token)) { IsBackground = true, Name = "Prewire receive" }.UnsafeStart();
        try
        {
            return await connected.Task.WaitAsync(token).ConfigureAwait(false);
        }
        catch (Exception e) when (e is SocketException or OperationCanceledException or TimeoutException)
        {
            // A connection the thread makes after this is closed by it.
            connected.TrySetCanceled(CancellationToken.None);
            if (e is OperationCanceledException && cancellationToken.IsCancellationRequested) throw;
            throw CannotConnect(endpoint, e, limit);
        }
    }

    private static void ConnectThenReceive(string host, int port, string endpoint, SocketConnectionOptions options, TimeSpan limit, TaskCompletionSource<SocketConnection> connected, CancellationToken cancellationToken)
    {
        SocketConnection connection;
        try
        {
            connection = new SocketConnection(Connect(host, port, options, limit, cancellationToken), null, endpoint, options, ownThread: true);
        }
        catch (Exception e)
        {
            connected.TrySetException(e);
            return;
        }
        if (!connected.TrySetResult(connection)) connection.Abort(null);
        connection.ReceiveOnThisThread();
    }

    private static Socket Connect(string host, int port, SocketConnectionOptions options, TimeSpan limit, CancellationToken cancellationToken)
    {
        // An address literal needs no resolver; a name's addresses are tried in the order it gives them.
        IPAddress[] addresses = IPAddress.TryParse(host, out var literal) ? [literal] : Dns.GetHostAddresses(host);
        var deadline = limit == Timeout.InfiniteTimeSpan ? long.MaxValue : Environment.TickCount64 + (long)limit.TotalMilliseconds;
        SocketException? failure = null;
        foreach (var address in addresses)
        {
            var socket = new Socket(address.AddressFamily, SocketType.Stream, ProtocolType.Tcp) { NoDelay = options.NoDelay };
            try
            {
                // A blocking connect, bounded by the send timeout (Linux applies it to connect) and woken by
                // the socket's disposal on cancellation: a non-blocking one would leave the socket to the engine.
                // An infinite limit leaves it 0 (none): the caller alone ends the wait.
                socket.SendTimeout = deadline == long.MaxValue ? 0 : (int)Math.Max(1, deadline - Environment.TickCount64);
                using (cancellationToken.UnsafeRegister(static state => ((Socket)state!).Dispose(), socket))
                {
                    socket.Connect(new IPEndPoint(address, port));
                }
                socket.SendTimeout = 0;
                return socket;
            }
            catch (Exception e) when (e is SocketException or ObjectDisposedException)
            {
                socket.Dispose();
                cancellationToken.ThrowIfCancellationRequested();
                // The send timeout and the caller's timer both end at the deadline, so either one is the connect timeout
                // (a CI run saw the kernel's come first, "Connection timed out"). Its timer may end a tick (4-10 ms) early.
                if (e is SocketException { SocketErrorCode: SocketError.TimedOut } && Environment.TickCount64 >= deadline - 20) throw new TimeoutException();
                // The synchronous connect's message names the endpoint; the caller's names it already.
                failure = new SocketException((int)(e is SocketException socketError ? socketError.SocketErrorCode : SocketError.OperationAborted));
            }
        }
        throw failure ?? new SocketException((int)SocketError.HostNotFound);
    }

    private void ReceiveOnThisThread()
    {
        var writer = _input.Writer;
        Exception? error = null;
        try
        {
            while (true)
            {
                var memory = writer.GetMemory(4096);
                var received = _socket.Receive(memory.Span, SocketFlags.None);
                if (received == 0) break; // the peer closed its side
                writer.Advance(received);
                // What reads Input runs inline, here; a full pipe holds this thread until the application has read.
                var flush = writer.FlushAsync();
                var result = flush.IsCompleted ? flush.Result : flush.AsTask().GetAwaiter().GetResult();
                if (result.IsCompleted || result.IsCanceled) break; // the application stopped reading, or an abort
                if (!_engineWatches) continue;
                // A receive on a socket the engine watches would go through it anyway, allocating a wait each.
                _ = ReceiveThroughEngineAsync();
                return;
            }
        }
        catch (Exception e) when (e is SocketException or ObjectDisposedException or IOException)
        {
            error = e;
        }
        writer.Complete(ReceiveFailure(error));
        _receiveEnded!.TrySetResult();
    }

    // A send found the socket full and left it to the engine to wait for room (the engine keeps it from then on).
    private void EngineTakesOver() => _engineWatches = true;

    private async Task ReceiveThroughEngineAsync()
    {
        await ReceiveAsync().ConfigureAwait(false);
        _receiveEnded!.TrySetResult();
    }
}
