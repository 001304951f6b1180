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
    public static IReadOnlyList<string> All { get; } = ["another CA", "the system's store", "expired", "another name", "an intermediate it does not send", "the plain port", "a silent port"];

    public static TheoryData<string> Cases => [.. All];

    /// <summary>A peer for <paramref name="refusal"/>: its port, the CA file to trust (null: the system's store), what the line must hold; dispose it after.</summary>
    public static async Task<Peer> ArrangeAsync(string refusal)
    {
        string File(string name) => Path.Combine(TestBroker.TlsDirectory, name);
        var ca = File("ca.pem");
        var tlsPort = TestBroker.TlsUri.Port;
        switch (refusal)
        {
            case "another CA":
                return new(tlsPort, File("other-ca.pem"), $"its certificate, issued by 'CN=Prewire test CA', is not signed by the CA in {File("other-ca.pem")}", null);
            case "the system's store":
                return new(tlsPort, null, "its certificate, issued by 'CN=Prewire test CA', is not signed by an authority the system trusts", null);
            case "expired":
                var expired = await OpenSslServer.StartAsync(File("expired.pem"), File("expired.key"));
                return new(expired.Port, ca, "its certificate expired on ", expired);
            case "another name":
                var elsewhere = await OpenSslServer.StartAsync(File("elsewhere.pem"), File("elsewhere.key"));
                return new(elsewhere.Port, ca, "its certificate names elsewhere.invalid, not 127.0.0.1", elsewhere);
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
