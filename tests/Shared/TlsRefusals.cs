using System.Net;
using System.Net.Sockets;
using Prewire.Testing;

namespace Prewire;

/// <summary>
/// Each way an amqps connection to the test node is refused, and what its one line must say: both
/// clients' tests use these, so both clients say the same. The peer is the node's TLS listener, its
/// plain port, <c>openssl s_server</c> with a certificate the node does not have, or a port that
/// accepts and never speaks.
/// </summary>
public static class TlsRefusals
{
    public static IReadOnlyList<string> All { get; } =
    [
        "another CA", "the system's store", "a chain from another root", "expired", "not yet valid", "another name", "not for servers",
        "an intermediate it does not send", "the plain port", "a silent port",
    ];

    public static TheoryData<string> Cases => [.. All];

    /// <summary>A peer for <paramref name="refusal"/>: its port, the CA file to trust (null: the system's store), what the line must hold; dispose it after.</summary>
    public static async Task<Peer> ArrangeAsync(string refusal)
    {
        string File(string name) => Path.Combine(TestBroker.TlsDirectory, name);
        var ca = File("ca.pem");
        var tlsPort = TestBroker.TlsUri.Port;
        // An openssl s_server with the broker's names, sending the certificate and the intermediate
        // (as the node does), so each case fails for its one reason.
        async Task<Peer> ServedAsync(string name, string expected, string chain = "intermediate.pem")
        {
            var server = await OpenSslServer.StartAsync(File($"{name}.pem"), File($"{name}.key"), File(chain));
            return new(server.Port, ca, expected, server);
        }
        switch (refusal)
        {
            // The node sends its certificate and the intermediate; the CA file holds the root alone.
            case "another CA":
                return new(tlsPort, File("other-ca.pem"), $"its certificate, issued by 'CN=Prewire test intermediate', is not signed by the CA in {File("other-ca.pem")}", null);
            case "the system's store":
                return new(tlsPort, null, "its certificate, issued by 'CN=Prewire test intermediate', is not signed by an authority the system trusts", null);
            case "a chain from another root":
                return await ServedAsync("rogue", $"its certificate, issued by 'CN=Prewire rogue intermediate', is not signed by the CA in {ca}", "rogue-intermediate.pem");
            case "expired":
                return await ServedAsync("expired", "its certificate expired on ");
            case "not yet valid":
                return await ServedAsync("notyet", "its certificate is not valid before ");
            case "another name":
                return await ServedAsync("elsewhere", "its certificate names elsewhere.invalid, not 127.0.0.1");
            case "not for servers":
                return await ServedAsync("clientonly", "its certificate is not one for a server (no serverAuth in its extended key usage)");
            case "an intermediate it does not send":
                // Its issuer is only named (AIA, a closed port): nothing is fetched, the chain stops short.
                var unsent = await OpenSslServer.StartAsync(File("unsent.pem"), File("unsent.key"));
                return new(unsent.Port, ca, $"its certificate, issued by 'CN=Prewire test intermediate', is not signed by the CA in {ca}", unsent);
            case "the plain port":
                return new(TestBroker.Uri.Port, ca, "is it the broker's TLS port?", null);
            case "a silent port":
                var silent = new Silent();
                return new(silent.Port, ca, "did not complete the TLS handshake within 10 s", silent);
            default:
                throw new ArgumentException($"no such refusal: {refusal}", nameof(refusal));
        }
    }

    /// <summary>Where to connect for a refusal, and what the line must hold.</summary>
    public sealed record Peer(int Port, string? CaFile, string Expected, IAsyncDisposable? Server) : IAsyncDisposable
    {
        public ValueTask DisposeAsync() => Server?.DisposeAsync() ?? default;
    }

    // Accepts connections and never says a word.
    private sealed class Silent : IAsyncDisposable
    {
        private readonly TcpListener _listener = new(IPAddress.Loopback, FreePort.Next());

        public Silent() => _listener.Start();

        public int Port => ((IPEndPoint)_listener.LocalEndpoint).Port;

        public ValueTask DisposeAsync()
        {
            _listener.Dispose();
            return default;
        }
    }
}
