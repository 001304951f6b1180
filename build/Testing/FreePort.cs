using System.Net;
using System.Net.Sockets;

namespace Prewire.Testing;

public static class FreePort
{
    /// <summary>A loopback TCP port nothing listens on right now.</summary>
    public static int Next()
    {
        using var listener = new TcpListener(IPAddress.Loopback, 0);
        listener.Start();
        return ((IPEndPoint)listener.LocalEndpoint).Port;
    }
}
