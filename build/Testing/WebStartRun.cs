using System.Net.Sockets;
using System.Text;

namespace Prewire.Testing;

/// <summary>
/// One start of a web app, timed from outside: spawn to its ready line, and spawn to the first answered
/// request (a GET polled on a fresh connection until it is answered 200), which needs nothing the app
/// says about itself.
/// </summary>
public sealed record WebStartRun(double ReadyMs, double FirstResponseMs)
{
    /// <summary>Starts <paramref name="executable"/> (the HttpEndpoint, or <see cref="WebTemplate"/>), times it, stops it.</summary>
    public static async Task<WebStartRun> RunAsync(App app, string executable, string rid)
    {
        ArgumentNullException.ThrowIfNull(app);
        var template = app == WebTemplate.App;
        var port = FreePort.Next();
        var address = $"http://127.0.0.1:{port}";
        await using var process = template
            ? AppProcess.Start(executable, [], new Dictionary<string, string> { ["ASPNETCORE_URLS"] = address }, rid)
            : AppProcess.Start(executable, ["--urls", address], rid: rid);
        var timeout = AppRuns.ReadyTimeout(rid);
        var ready = template ? await process.WaitForLineAsync(WebTemplate.ReadyText, timeout).ConfigureAwait(false) : await process.WaitForReadyAsync(timeout).ConfigureAwait(false);
        var request = Encoding.ASCII.GetBytes($"GET {(template ? WebTemplate.Route : "/health/live")} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
        var firstResponse = await FirstOkAsync(process, port, request, timeout).ConfigureAwait(false);
        process.Terminate();
        await process.WaitForExitAsync(AppRuns.ExitTimeout(rid)).ConfigureAwait(false);
        return new WebStartRun(ready, firstResponse);
    }

    /// <summary>The medians of <paramref name="runs"/>.</summary>
    public static WebStartRun Median(IReadOnlyCollection<WebStartRun> runs) =>
        new(StartupRuns.Median(runs.Select(r => r.ReadyMs)), StartupRuns.Median(runs.Select(r => r.FirstResponseMs)));

    // Polled right after the ready line, as a load balancer's first request would come: the time includes
    // whatever the app left for its first request (routing's tables, the first connection's buffers).
    private static async Task<double> FirstOkAsync(AppProcess process, int port, byte[] request, TimeSpan timeout)
    {
        var buffer = new byte[12];
        var until = DateTime.UtcNow + timeout;
        while (DateTime.UtcNow < until)
        {
            using var socket = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp) { NoDelay = true };
            try
            {
                await socket.ConnectAsync(System.Net.IPAddress.Loopback, port).ConfigureAwait(false);
                await socket.SendAsync(request).ConfigureAwait(false);
                var read = 0;
                while (read < buffer.Length && await socket.ReceiveAsync(buffer.AsMemory(read)).ConfigureAwait(false) is var n and > 0) read += n;
                if (Encoding.ASCII.GetString(buffer, 0, read) == "HTTP/1.1 200") return process.SinceSpawnMs;
            }
            catch (SocketException)
            {
            }
        }
        throw new TimeoutException($"no 200 within {timeout.TotalSeconds} s.\nstdout:\n{process.Stdout}\nstderr:\n{process.Stderr}");
    }
}
