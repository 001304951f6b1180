using System.Diagnostics;
using System.Net;

namespace Prewire.Testing;

/// <summary>
/// <c>openssl s_server</c> on a loopback port with a certificate of the test's choosing: a real TLS peer
/// for a client's certificate checks (an expired certificate, one for another name), where the broker's
/// own listener has one certificate. The handshake is all it is for; it speaks no AMQP.
/// </summary>
public sealed class OpenSslServer : IAsyncDisposable
{
    private readonly Process _process;

    private OpenSslServer(Process process, int port) => (_process, Port) = (process, port);

    public int Port { get; }

    /// <summary>Listens with <paramref name="certificateFile"/>, sending the certificates in <paramref name="chainFile"/> after it when given.</summary>
    public static async Task<OpenSslServer> StartAsync(string certificateFile, string keyFile, string? chainFile = null)
    {
        var port = FreePort.Next();
        var start = new ProcessStartInfo("openssl") { RedirectStandardInput = true, RedirectStandardOutput = true, RedirectStandardError = true, UseShellExecute = false };
        foreach (var arg in new[] { "s_server", "-accept", $"127.0.0.1:{port}", "-cert", certificateFile, "-key", keyFile, "-quiet" }) start.ArgumentList.Add(arg);
        if (chainFile is not null)
        {
            start.ArgumentList.Add("-cert_chain");
            start.ArgumentList.Add(chainFile);
        }
        var process = Process.Start(start) ?? throw new InvalidOperationException("openssl did not start (build/bootstrap.sh installs it)");
        process.OutputDataReceived += (_, _) => { };
        process.ErrorDataReceived += (_, _) => { };
        process.BeginOutputReadLine();
        process.BeginErrorReadLine();
        var server = new OpenSslServer(process, port);
        for (var i = 0; i < 100 && !process.HasExited; i++)
        {
            if (await PortProbe.AcceptsAsync(new IPEndPoint(IPAddress.Loopback, port)).ConfigureAwait(false)) return server;
            await Task.Delay(50).ConfigureAwait(false);
        }
        await server.DisposeAsync().ConfigureAwait(false);
        throw new InvalidOperationException($"openssl s_server did not listen on 127.0.0.1:{port}");
    }

    public async ValueTask DisposeAsync()
    {
        if (!_process.HasExited) _process.Kill(entireProcessTree: true);
        await _process.WaitForExitAsync().ConfigureAwait(false);
        _process.Dispose();
    }
}
