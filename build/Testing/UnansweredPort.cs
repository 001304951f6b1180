using System.Net;
using System.Net.Sockets;

namespace Prewire.Testing;

/// <summary>
/// A loopback port whose listener's backlog is full, so a connect's SYN is never answered: the kernel
/// drops it, as a firewall or a lost packet would. (A port that accepts and never speaks is another case.)
/// </summary>
public sealed class UnansweredPort : IDisposable
{
    private readonly Socket _listener = new(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp);
    private readonly List<Socket> _queued = [];

    public UnansweredPort()
    {
        _listener.Bind(new IPEndPoint(IPAddress.Loopback, FreePort.Next()));
        _listener.Listen(0);
        // A backlog of 0 still queues one connection (two on some kernels): fill it.
        for (var i = 0; i < 3; i++)
        {
            var client = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp);
            _ = client.ConnectAsync(_listener.LocalEndPoint!);
            _queued.Add(client);
        }
        Thread.Sleep(200);
    }

    public int Port => ((IPEndPoint)_listener.LocalEndPoint!).Port;

    public void Dispose()
    {
        foreach (var client in _queued) client.Dispose();
        _listener.Dispose();
    }
}
