using System.Net;
using System.Net.Sockets;

namespace Prewire.Harness;

/// <summary>
/// A TCP relay on loopback to one port, for one connection: keeps what the client sent, and can hold
/// back what the server sends (a network that stalls one way) without closing anything.
/// </summary>
public sealed class TcpRelay : IDisposable
{
    private readonly TcpListener _listener = new(IPAddress.Loopback, 0);
    private readonly MemoryStream _clientToServer = new();
    private readonly Task _relaying;
    private TaskCompletionSource _flowing = Flowing();

    public TcpRelay(int serverPort)
    {
        _flowing.SetResult();
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
    public void Hold()
    {
        if (_flowing.Task.IsCompleted) _flowing = Flowing();
    }

    /// <summary>Passes on what was held and what comes after.</summary>
    public void Release() => _flowing.TrySetResult();

    private static TaskCompletionSource Flowing() => new(TaskCreationOptions.RunContinuationsAsynchronously);

    private async Task RelayAsync(int serverPort)
    {
        using var client = await _listener.AcceptTcpClientAsync();
        using var server = new TcpClient();
        await server.ConnectAsync(IPAddress.Loopback, serverPort);
        var up = CopyAsync(client.GetStream(), server.GetStream(), _clientToServer, gate: null);
        var down = CopyAsync(server.GetStream(), client.GetStream(), record: null, gate: () => _flowing.Task);
        await Task.WhenAny(up, down);
    }

    private static async Task CopyAsync(NetworkStream from, NetworkStream to, MemoryStream? record, Func<Task>? gate)
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
                if (gate is not null) await gate();
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
