using System.Net;
using System.Net.Sockets;

namespace Prewire.Testing;

/// <summary>What an orchestrator's <c>tcpSocket</c> probe does: connect, and count an accepted connection as a pass.</summary>
public static class PortProbe
{
    /// <summary><see langword="true"/> when a connection to <paramref name="endpoint"/> is accepted within 2 s.</summary>
    public static async Task<bool> AcceptsAsync(IPEndPoint endpoint, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(endpoint);
        using var socket = new Socket(endpoint.AddressFamily, SocketType.Stream, ProtocolType.Tcp);
        using var timeout = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken);
        timeout.CancelAfter(TimeSpan.FromSeconds(2));
        try
        {
            await socket.ConnectAsync(endpoint, timeout.Token).ConfigureAwait(false);
            return true;
        }
        catch (Exception e) when (e is SocketException || (e is OperationCanceledException && !cancellationToken.IsCancellationRequested))
        {
            return false;
        }
    }
}
