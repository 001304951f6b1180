using System.Net;
using System.Net.Sockets;

namespace Prewire.Testing;

/// <summary>
/// A loopback port that refuses every connect for as long as this lives: bound, never listened on. A
/// port found free and let go (bind to 0, close, connect) can meanwhile become a listener of a test
/// running beside, or the port of an outgoing connection, which then connects to itself; while this
/// holds the port, the kernel gives it to neither.
/// </summary>
public sealed class RefusingPort : IDisposable
{
    private readonly Socket _socket = new(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp);

    public RefusingPort() => _socket.Bind(new IPEndPoint(IPAddress.Loopback, 0));

    public int Port => ((IPEndPoint)_socket.LocalEndPoint!).Port;

    public void Dispose() => _socket.Dispose();
}
