using System.Net;
using System.Net.Sockets;

namespace Prewire.Samples;

/// <summary>
/// One probe port: while open it accepts each connection and closes it at once; while closed a
/// connection is refused. The accepting runs on the thread pool, so an app whose pool is wedged
/// stops accepting and, past the small backlog, fails the probe.
/// </summary>
internal sealed class ProbePort(IPEndPoint endpoint, string name) : IDisposable
{
    // Enough for a few probes at once; seen here, a listener that accepts nothing lets three through and
    // times the rest out, so a wedged app fails its probes instead of the kernel answering for it.
    private const int Backlog = 2;

    private readonly Lock _gate = new();
    private Socket? _listener;
    private bool _disposed;

    /// <summary>A port opened at once.</summary>
    public static ProbePort Listen(IPEndPoint endpoint, string name)
    {
        var port = new ProbePort(endpoint, name);
        port.SetOpen(true);
        return port;
    }

    /// <summary>Opens (listens) or closes the port; the same state again does nothing.</summary>
    /// <exception cref="AppException">The port could not be listened on.</exception>
    public void SetOpen(bool open)
    {
        Socket? closing;
        lock (_gate)
        {
            if (_disposed || open == (_listener is not null)) return;
            if (open)
            {
                _listener = Bind();
                _ = AcceptAsync(_listener);
                return;
            }
            (closing, _listener) = (_listener, null);
        }
        closing?.Dispose();
    }

    private Socket Bind()
    {
        var socket = new Socket(endpoint.AddressFamily, SocketType.Stream, ProtocolType.Tcp);
        try
        {
            // Reopened for each readiness: a probe connection just closed leaves TIME_WAIT behind.
            socket.SetSocketOption(SocketOptionLevel.Socket, SocketOptionName.ReuseAddress, true);
            socket.Bind(endpoint);
            socket.Listen(Backlog);
            return socket;
        }
        catch (SocketException e)
        {
            socket.Dispose();
            throw new AppException($"cannot listen for {name} probes on {endpoint}: {e.Message}", ExitCodes.Failure, e);
        }
    }

    private static async Task AcceptAsync(Socket listener)
    {
        try
        {
            while (true)
            {
                using var connection = await listener.AcceptAsync().ConfigureAwait(false);
                connection.Close();
            }
        }
        catch (Exception e) when (e is SocketException or ObjectDisposedException)
        {
            // Closed: not ready, or stopping.
        }
    }

    public void Dispose()
    {
        lock (_gate) _disposed = true;
        Interlocked.Exchange(ref _listener, null)?.Dispose();
    }
}
