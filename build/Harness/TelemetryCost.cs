using System.Diagnostics;
using System.Globalization;
using System.Net;
using System.Text;

namespace Prewire.Harness;

/// <summary>
/// <c>benchmarks/telemetry.sh [runs] [count] [rid]</c>: what exporting traces and metrics costs each NativeAOT
/// app as it ships (linux-arm64 builds run under qemu on an x64 host: compare on / off within the RID), telemetry off against on (<c>OTEL_EXPORTER_OTLP_ENDPOINT</c> set, to an OTLP/HTTP
/// receiver the harness runs), alternating run by run: the Publisher and the Consumer on each client
/// (msgs/s and bytes allocated per message, their <c>--json</c> reports), and the HttpEndpoint (requests
/// one after another on one connection: requests/s and bytes per request, from the runtime's allocation
/// counter on its /metrics). An "on" run counts only when the receiver got a span for every message.
/// </summary>
public static class TelemetryCost
{
    private const int Concurrency = 16;
    private const int Requests = 2_000;

    public static async Task<int> RunAsync(int runs, int count, string rid, TextWriter output)
    {
        ArgumentNullException.ThrowIfNull(output);
        var broker = BrokerNode.RequiredUri("telemetry");
        // The consoles for each client (RabbitMQ.Client's from the both-clients build); the HttpEndpoint as it ships.
        if (await AppBuilds.PublishForClientsAsync("telemetry", [App.Publisher, App.Consumer], rid, PublishMode.Aot, output).ConfigureAwait(false) is not { } builds) return 1;
        var endpointBuild = await AppBuilds.PublishStepAsync("telemetry:", App.HttpEndpoint, rid, PublishMode.Aot, AmqpClients.Prewire, output).ConfigureAwait(false);
        if (!endpointBuild.Succeeded) return 1;

        // Under qemu half the requests: each takes several times as long, and the window must still
        // outlast the Prometheus exporter's response cache (300 ms), or the second read repeats the first.
        var requests = Qemu.Emulates(rid) ? Requests / 2 : Requests;
        var measured = await MeasureAsync(builds, endpointBuild, broker, runs, count, requests, output).ConfigureAwait(false);
        output.WriteLine();
        output.WriteLine(string.Create(CultureInfo.InvariantCulture,
            $"{rid}{(Qemu.Emulates(rid) ? " under qemu" : "")}, medians of {runs} runs ({count:N0} messages of the Publisher's text, {Concurrency} in flight; {requests:N0} HttpEndpoint requests of 64 B one after another); on / off:"));
        WriteOnOff(measured, output);
        output.WriteLine();
        output.WriteLine($"{DateTime.UtcNow:yyyy-MM-dd HH:mm} UTC, commit {await GitAsync().ConfigureAwait(false)}, {Environment.ProcessorCount} cores");
        return 0;
    }

    // Off and on alternate, which first changing run by run; each run's rows printed as they come.
    private static async Task<List<Figure>> MeasureAsync(IReadOnlyDictionary<(App App, AmqpClients Clients), PublishResult> builds, PublishResult endpointBuild, string broker, int runs, int count, int requests, TextWriter output)
    {
        var measured = new List<Figure>();
        output.WriteLine();
        output.WriteLine("| run | app | client | telemetry | msgs/s (requests/s) | B/message (B/request) | spans received |");
        output.WriteLine("|---:|---|---|---|---:|---:|---:|");
        for (var run = 1; run <= runs; run++)
        {
            foreach (var on in run % 2 == 1 ? new[] { false, true } : [true, false])
            {
                await using var otlp = new OtlpReceiver();
                var environment = on ? otlp.Environment() : null;
                foreach (var client in AppClient.All)
                {
                    var result = await MessagingRun.RunAsync(client, builds[(App.Publisher, client.Build)], builds[(App.Consumer, client.Build)], broker, count, Concurrency,
                        timeout: TimeSpan.FromMinutes(10), environment: environment).ConfigureAwait(false);
                    var spans = await SpansAsync(otlp, on, 2 * count).ConfigureAwait(false);
                    Add($"Publisher | {client}", on, result.Publisher.GetProperty("msgsPerSecond").GetDouble(), result.Publisher.GetProperty("bytesPerMessage").GetDouble(), spans);
                    Add($"Consumer | {client}", on, result.Consumer.GetProperty("msgsPerSecond").GetDouble(), result.Consumer.GetProperty("bytesPerMessage").GetDouble(), spans);
                }
                var (perSecond, bytes) = await HttpEndpointAsync(endpointBuild, broker, requests, environment).ConfigureAwait(false);
                // Each request: Kestrel's span and the publish span.
                Add($"HttpEndpoint | {AppClient.Prewire}", on, perSecond, bytes, await SpansAsync(otlp, on, 2 * requests).ConfigureAwait(false));

                void Add(string row, bool on, double perSecond, double bytes, int spans)
                {
                    measured.Add(new Figure(row, on, perSecond, bytes));
                    output.WriteLine(string.Create(CultureInfo.InvariantCulture, $"| {run} | {row} | {(on ? "on" : "off")} | {perSecond:0} | {bytes:0} | {spans} |"));
                }
            }
        }
        return measured;
    }

    private static void WriteOnOff(List<Figure> measured, TextWriter output)
    {
        output.WriteLine();
        output.WriteLine("| app | client | msgs/s off | msgs/s on | ratio | B/message off | B/message on | added |");
        output.WriteLine("|---|---|---:|---:|---:|---:|---:|---:|");
        foreach (var row in measured.Select(m => m.Row).Distinct())
        {
            double Median(bool on, Func<Figure, double> figure) =>
                StartupRuns.Median(measured.Where(m => m.Row == row && m.On == on).Select(figure));
            var (offRate, onRate, offBytes, onBytes) = (Median(false, m => m.PerSecond), Median(true, m => m.PerSecond), Median(false, m => m.Bytes), Median(true, m => m.Bytes));
            output.WriteLine(string.Create(CultureInfo.InvariantCulture,
                $"| {row} | {offRate:0} | {onRate:0} | {onRate / offRate:0.00}x | {offBytes:0} | {onBytes:0} | {onBytes - offBytes:+0;-0} |"));
        }
    }

    // The spans the receiver got for a run: every one expected, or the run was not traced as it claims.
    private static async Task<int> SpansAsync(OtlpReceiver otlp, bool on, int expected)
    {
        if (!on) return otlp.Spans.Count;
        var spans = (await otlp.WaitForAsync(s => s.Count >= expected, TimeSpan.FromSeconds(20)).ConfigureAwait(false)).Count;
        if (spans < expected) throw new InvalidOperationException($"the receiver got {spans} spans of the {expected} a traced run makes");
        otlp.Clear();
        return spans;
    }

    private static async Task<(double PerSecond, double Bytes)> HttpEndpointAsync(PublishResult build, string broker, int requests, IReadOnlyDictionary<string, string>? environment)
    {
        var address = new Uri($"http://127.0.0.1:{FreePort.Next()}/");
        await using var process = AppProcess.Start(build.ExecutablePath,
            ["--urls", address.ToString().TrimEnd('/'), "--uri", broker, "--queue", $"prewire.telemetry.{Guid.NewGuid():N}"], environment, rid: build.Rid);
        await process.WaitForReadyAsync(AppRuns.ReadyTimeout(build.Rid)).ConfigureAwait(false);
        using var http = new HttpClient { BaseAddress = address };
        var body = new string('x', 64);
        async Task PostAsync()
        {
            using var content = new StringContent(body, Encoding.UTF8, "text/plain");
            using var response = await http.PostAsync(new Uri("messages/bench", UriKind.Relative), content).ConfigureAwait(false);
            if (response.StatusCode != HttpStatusCode.Accepted) throw new InvalidOperationException($"HttpEndpoint answered {(int)response.StatusCode}");
        }
        // Warm: pools, tiered-up code, the connection, the broker link's ready state.
        for (var deadline = DateTime.UtcNow.AddSeconds(30); ; await Task.Delay(100).ConfigureAwait(false))
        {
            using var ready = await http.GetAsync(new Uri("health/ready", UriKind.Relative)).ConfigureAwait(false);
            if (ready.IsSuccessStatusCode) break;
            if (DateTime.UtcNow > deadline) throw new InvalidOperationException("HttpEndpoint not ready within 30 s");
        }
        for (var i = 0; i < requests / 4; i++) await PostAsync().ConfigureAwait(false);
        var before = await AllocatedAsync(http).ConfigureAwait(false);
        var clock = Stopwatch.StartNew();
        for (var i = 0; i < requests; i++) await PostAsync().ConfigureAwait(false);
        var elapsed = clock.Elapsed;
        var allocated = await AllocatedAsync(http).ConfigureAwait(false) - before;
        if (allocated <= 0) throw new InvalidOperationException($"the HttpEndpoint's allocation counter did not move over {requests} requests in {elapsed.TotalMilliseconds:0} ms: a cached /metrics answer?");
        process.Terminate();
        await process.WaitForExitAsync(AppRuns.ExitTimeout(build.Rid)).ConfigureAwait(false);
        return (requests / elapsed.TotalSeconds, allocated / (double)requests);
    }

    // The runtime's own allocation counter, as the HttpEndpoint's /metrics exports it.
    private static async Task<long> AllocatedAsync(HttpClient http)
    {
        var metrics = await http.GetStringAsync(new Uri("metrics", UriKind.Relative)).ConfigureAwait(false);
        var line = metrics.Split('\n').Single(l => l.StartsWith("dotnet_gc_heap_total_allocated_bytes_total", StringComparison.Ordinal));
        return long.Parse(line.Split(' ')[^1], CultureInfo.InvariantCulture);
    }

    private static async Task<string> GitAsync() => (await Tool.RunAsync("git", ["rev-parse", "--short", "HEAD"], Repo.Root).ConfigureAwait(false)).Output.Trim();

    private sealed record Figure(string Row, bool On, double PerSecond, double Bytes);
}
