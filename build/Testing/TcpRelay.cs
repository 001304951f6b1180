using System.Net;
using System.Net.Sockets;

namespace Prewire.Testing;

/// <summary>
/// A TCP relay on loopback to one port, for one connection: keeps what the client sent, and can hold
/// back what either side sends (a network that stalls one way) without closing anything.
/// </summary>
public sealed class TcpRelay : IDisposable
{
    private readonly TcpListener _listener = new(IPAddress.Loopback, 0);
    private readonly MemoryStream _clientToServer = new();
    private readonly Task _relaying;
    private TaskCompletionSource _serverFlowing = Flowing();
    private TaskCompletionSource _clientFlowing = Flowing();
    private readonly TaskCompletionSource<Socket> _clientSocket = new(TaskCreationOptions.RunContinuationsAsynchronously);

    public TcpRelay(int serverPort)
    {
        _serverFlowing.SetResult();
        _clientFlowing.SetResult();
        _listener.Start();
        _relaying = RelayAsync(serverPort);
    }

    /// <summary>The port clients connect to.</summary>
    public int Port => ((IPEndPoint)_listener.LocalEndpoint).Port;

    /// <summary>What the client sent, once it closed its connection (or 10 s passed).</summary>
    public byte[] ClientToServer()
    {
        _relaying.Wait(TimeSpan.FromSeconds(10));
        lock (_clientToServer) return _clientToServer.ToArray();
    }

    /// <summary>Holds what the server sends from now on, until <see cref="Release"/>.</summary>
    public void Hold() => Hold(ref _serverFlowing);

    /// <summary>
    /// Holds what the client sends from now on (after the chunk being read, at most 64 KiB), until
    /// <see cref="Release"/>: once the socket buffers between are full, the client's sends wait.
    /// </summary>
    public void HoldClient() => Hold(ref _clientFlowing);

    /// <summary>Passes on what was held, both ways, and what comes after.</summary>
    public void Release()
    {
        _serverFlowing.TrySetResult();
        _clientFlowing.TrySetResult();
    }

    /// <summary>Resets the client's connection (RST, nothing held is passed on): a network that dropped it.</summary>
    public async Task ResetClientAsync()
    {
        var socket = await _clientSocket.Task.WaitAsync(TimeSpan.FromSeconds(10));
        socket.LingerState = new LingerOption(true, 0);
        socket.Close();
    }

    private static void Hold(ref TaskCompletionSource flowing)
    {
        if (flowing.Task.IsCompleted) flowing = Flowing();
    }

    private static TaskCompletionSource Flowing() => new(TaskCreationOptions.RunContinuationsAsynchronously);

    private async Task RelayAsync(int serverPort)
    {
        using var client = await _listener.AcceptTcpClientAsync();
        _clientSocket.SetResult(client.Client);
        using var server = new TcpClient();
        await server.ConnectAsync(IPAddress.Loopback, serverPort);
        var up = CopyAsync(client.GetStream(), server.GetStream(), _clientToServer, gate: () => _clientFlowing.Task);
        var down = CopyAsync(server.GetStream(), client.GetStream(), record: null, gate: () => _serverFlowing.Task);
        await Task.WhenAny(up, down);
    }

    private static async Task CopyAsync(NetworkStream from, NetworkStream to, MemoryStream? record, Func<Task> gate)
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
                await gate();
                await to.WriteAsync(buffer.AsMemory(0, read));
            }
        }
        catch (Exception e) when (e is IOException or ObjectDisposedException)
        {
            return;
        }
        to.Socket.Shutdown(SocketShutdown.Send);
    }

    public void Dispose()
    {
        Release();
        _listener.Dispose();
    }
}
