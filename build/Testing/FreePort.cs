using System.Net;
using System.Net.Sockets;

namespace Prewire.Testing;

public static class FreePort
{
    // Below the kernel's ephemeral range (32768 on): a port the kernel handed out from inside it (bind
    // to port 0) can be taken by another process's outgoing connection before the app under test binds
    // it; build/broker.sh picks its ports from the same range for the same reason.
    private const int First = 20000;

    /// <summary>A loopback TCP port nothing uses right now, below the ephemeral range.</summary>
    public static int Next()
    {
        var end = EphemeralStart();
        for (var attempt = 0; attempt < 200; attempt++)
        {
            var port = Random.Shared.Next(First, end);
            using var socket = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp);
            try
            {
                socket.Bind(new IPEndPoint(IPAddress.Loopback, port));
                return port;
            }
            catch (SocketException e) when (e.SocketErrorCode == SocketError.AddressAlreadyInUse)
            {
            }
        }

        throw new InvalidOperationException($"no free loopback port in {First}-{end - 1}");
    }

    private static int EphemeralStart()
    {
        try
        {
            var low = int.Parse(File.ReadAllText("/proc/sys/net/ipv4/ip_local_port_range").Split('\t', ' ')[0], System.Globalization.CultureInfo.InvariantCulture);
            return low > First + 1000 ? low : 32768;
        }
        catch (IOException)
        {
            return 32768;
        }
    }
}
