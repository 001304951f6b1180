using System.Net;
using System.Net.Sockets;

namespace Prewire.Samples;

public sealed class ProbeOptionsTests
{
    [Theory]
    [InlineData("8081", "0.0.0.0:8081")]
    [InlineData("127.0.0.1:9000", "127.0.0.1:9000")]
    [InlineData("[::1]:9000", "[::1]:9000")]
    public void A_port_listens_everywhere_and_host_port_on_that_address(string text, string expected)
    {
        var (app, probes) = Command();
        var parsed = app.Parse(["--readiness-port", text]);
        Assert.Empty(parsed.Errors);
        Assert.True(ProbeOptions.TryParse(text, out var endpoint));
        Assert.Equal(expected, endpoint!.ToString());
        Assert.NotNull(probes);
    }

    [Theory]
    [InlineData("0")]
    [InlineData("65536")]
    [InlineData("abc")]
    [InlineData("127.0.0.1")]
    [InlineData("-1")]
    public void Anything_else_is_a_usage_error_naming_the_option(string text)
    {
        var (app, _) = Command();
        var parsed = app.Parse(["--liveness-port", text]);
        Assert.Equal($"--liveness-port must be a port (1-65535) or HOST:PORT, not '{text}'.", Assert.Single(parsed.Errors).Message);
    }

    [Fact]
    public void Readiness_accepts_only_while_set_ready_and_liveness_from_the_start()
    {
        var (live, ready) = (Free(), Free());
        var (app, probes) = Command();
        using (var ports = probes.Open(app.Parse(["--liveness-port", $"{live}", "--readiness-port", $"{ready}"])))
        {
            Assert.Equal((true, false), (Accepts(live), Accepts(ready)));
            ports.SetReady(true);
            Assert.Equal((true, true), (Accepts(live), Accepts(ready)));
            ports.SetReady(false);
            Assert.Equal((true, false), (Accepts(live), Accepts(ready)));
            ports.SetReady(true);
            Assert.True(Accepts(ready));
        }
        Assert.Equal((false, false), (Accepts(live), Accepts(ready)));
    }

    [Fact]
    public void A_port_in_use_fails_at_open_in_one_line()
    {
        using var taken = new TcpListener(IPAddress.Loopback, 0);
        taken.Start();
        var (app, probes) = Command();
        var e = Assert.Throws<AppException>(() => probes.Open(app.Parse(["--readiness-port", $"{taken.LocalEndpoint}"])));
        Assert.StartsWith($"cannot listen for readiness probes on {taken.LocalEndpoint}: ", e.Message, StringComparison.Ordinal);
    }

    private static (AppCommand App, ProbeOptions Probes) Command()
    {
        var app = new AppCommand("test", "Test.");
        return (app, app.AddProbes("consuming"));
    }

    private static IPEndPoint Free()
    {
        using var listener = new TcpListener(IPAddress.Loopback, 0);
        listener.Start();
        return (IPEndPoint)listener.LocalEndpoint;
    }

    private static bool Accepts(IPEndPoint endpoint)
    {
        using var client = new TcpClient();
        try
        {
            client.Connect(endpoint);
            return true;
        }
        catch (SocketException)
        {
            return false;
        }
    }
}
