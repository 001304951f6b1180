using System.Net;
using System.Net.Sockets;

namespace Prewire.Messaging;

/// <summary>
/// A TCP relay on 127.0.0.1 to the test broker that can reset every connection through it at once:
/// the client's next read or send fails and no close frame ever comes, as when a node dies.
/// </summary>
internal sealed class ResettingRelay : IDisposable
{
    private readonly TcpListener _listener = new(IPAddress.Loopback, 0);
    private readonly List<Socket> _open = [];
    private readonly int _brokerPort;

    public ResettingRelay(int brokerPort)
    {
        _brokerPort = brokerPort;
        _listener.Start();
        _ = AcceptAsync();
    }

    public int Port => ((IPEndPoint)_listener.LocalEndpoint).Port;

    /// <summary>Closes both sides of every relayed connection with a zero linger: a reset, not a goodbye.</summary>
    public void ResetAll()
    {
        lock (_open)
        {
            foreach (var socket in _open)
            {
                socket.LingerState = new LingerOption(true, 0);
                socket.Close();
            }
            _open.Clear();
        }
    }

    public void Dispose()
    {
        _listener.Stop();
        ResetAll();
    }

    private async Task AcceptAsync()
    {
        try
        {
            while (true)
            {
                var client = await _listener.AcceptSocketAsync().ConfigureAwait(false);
                var broker = new Socket(SocketType.Stream, ProtocolType.Tcp);
                await broker.ConnectAsync(IPAddress.Loopback, _brokerPort).ConfigureAwait(false);
                lock (_open) _open.AddRange([client, broker]);
                _ = RelayAsync(client, broker);
                _ = RelayAsync(broker, client);
            }
        }
        catch (Exception e) when (e is SocketException or ObjectDisposedException)
        {
            // Stopped.
        }
    }

    private static async Task RelayAsync(Socket from, Socket to)
    {
        var buffer = new byte[16 * 1024];
        try
        {
            int received;
            while ((received = await from.ReceiveAsync(buffer).ConfigureAwait(false)) > 0) await to.SendAsync(buffer.AsMemory(0, received)).ConfigureAwait(false);
            to.Shutdown(SocketShutdown.Send);
        }
        catch (Exception e) when (e is SocketException or ObjectDisposedException)
        {
            // Reset, or the other way ended first.
        }
    }
}
