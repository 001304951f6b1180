using System.Globalization;

namespace Prewire.Harness;

/// <summary>
/// `benchmarks/end-to-end.sh [runs]`: the apps end to end (Publisher → broker → Consumer, N messages
/// through a quorum queue) at 256 B and 64 KiB bodies, NativeAOT against the self-contained JIT build
/// and Prewire's client against RabbitMQ.Client (both apps on one client; RabbitMQ.Client from the
/// both-clients build), every combination once per run,
/// alternating, so each ratio compares runs made minutes apart on the same machine and broker. Beside
/// end-to-end msgs/s, the Consumer's own median latency (a message's publish to its handling): a
/// Consumer falling behind the Publisher shows there.
/// </summary>
public static class MessagingBenchmark
{
    private const int Concurrency = 16;

    private static readonly (int Size, int Count)[] _sizes = [(256, 20_000), (64 * 1024, 2_000)];

    private static readonly PublishMode[] _modes = [PublishMode.Aot, PublishMode.Jit];

    public static async Task<int> RunAsync(int runs, TextWriter output)
    {
        ArgumentNullException.ThrowIfNull(output);
        var broker = BrokerNode.RequiredUri("messaging");
        var builds = new Dictionary<PublishMode, IReadOnlyDictionary<(App App, AmqpClients Clients), PublishResult>>();
        foreach (var mode in _modes)
        {
            if (await AppBuilds.PublishForClientsAsync("end-to-end", [App.Publisher, App.Consumer], Repo.HostRid, mode, output).ConfigureAwait(false) is not { } built) return 1;
            builds[mode] = built;
        }

        var measured = await MeasureAsync(builds, broker, runs, output).ConfigureAwait(false);
        WriteMedians(measured, runs, output);
        WriteRatios(measured, output);
        return 0;
    }

    // Every size, client and build once per run, in that order, each run's row printed as it comes.
    private static async Task<List<Measurement>> MeasureAsync(Dictionary<PublishMode, IReadOnlyDictionary<(App App, AmqpClients Clients), PublishResult>> builds, string broker, int runs, TextWriter output)
    {
        var measured = new List<Measurement>();
        output.WriteLine();
        output.WriteLine($"| run | body | build | client | {FigureHeader}");
        output.WriteLine($"|---:|---:|---|---|{FigureRule}");
        for (var run = 1; run <= runs; run++)
        {
            foreach (var (size, count) in _sizes)
            {
                foreach (var client in AppClient.All)
                {
                    foreach (var mode in _modes)
                    {
                        var result = await MessagingRun.RunAsync(client, builds[mode][(App.Publisher, client.Build)], builds[mode][(App.Consumer, client.Build)], broker, count, Concurrency, size).ConfigureAwait(false);
                        var m = new Measurement(size, mode, client.Name, count / result.Elapsed.TotalSeconds,
                            result.Consumer.GetProperty("endToEndP50Ms").GetDouble(), result.Publisher.GetProperty("msgsPerSecond").GetDouble(),
                            result.Publisher.GetProperty("peakRssMb").GetDouble(), result.Consumer.GetProperty("peakRssMb").GetDouble());
                        measured.Add(m);
                        output.WriteLine($"| {run} | {Body(size)} | {mode} | {client} | {Figures(m)}");
                    }
                }
            }
        }
        return measured;
    }

    private static void WriteMedians(List<Measurement> measured, int runs, TextWriter output)
    {
        output.WriteLine();
        output.WriteLine($"Medians of {runs} runs ({Concurrency} publishes in flight; {string.Join(", ", _sizes.Select(s => $"{s.Count:N0} x {Body(s.Size)}"))}):");
        output.WriteLine();
        output.WriteLine($"| body | build | client | {FigureHeader}");
        output.WriteLine($"|---:|---|---|{FigureRule}");
        foreach (var (size, _) in _sizes)
        {
            foreach (var mode in _modes)
            {
                foreach (var client in AppClient.All.Select(c => c.Name))
                {
                    var m = Median(measured, size, mode, client);
                    output.WriteLine($"| {Body(size)} | {mode} | {client} | {Figures(m)}");
                }
            }
        }
    }

    private static void WriteRatios(List<Measurement> measured, TextWriter output)
    {
        output.WriteLine();
        output.WriteLine("Ratios of the medians (end-to-end msgs/s, latency p50, publisher msgs/s, publisher peak RSS, consumer peak RSS):");
        output.WriteLine();
        output.WriteLine($"| body | compared | {FigureHeader}");
        output.WriteLine($"|---:|---|{FigureRule}");
        var (official, zeroCopy) = (AppClient.RabbitMQ.Name, AppClient.Prewire.Name);
        foreach (var (size, _) in _sizes)
        {
            foreach (var mode in _modes)
                output.WriteLine(RatioRow(size, $"{zeroCopy} / {official} ({mode})", Median(measured, size, mode, zeroCopy), Median(measured, size, mode, official)));
            foreach (var client in AppClient.All.Select(c => c.Name))
                output.WriteLine(RatioRow(size, $"AOT / JIT ({client})", Median(measured, size, PublishMode.Aot, client), Median(measured, size, PublishMode.Jit, client)));
        }
    }

    // The figures' columns, the same in each table: a run's, a median's, a ratio's.
    private const string FigureHeader = "end-to-end msgs/s | latency p50 | publisher msgs/s | publisher peak RSS | consumer peak RSS |";
    private const string FigureRule = "---:|---:|---:|---:|---:|";

    private static string Figures(Measurement m) => $"{m.EndToEnd:0} | {m.Latency:0.0} ms | {m.Published:0} | {m.PublisherRss:0.0} MB | {m.ConsumerRss:0.0} MB |";

    private static string RatioRow(int size, string compared, Measurement a, Measurement b) =>
        string.Create(CultureInfo.InvariantCulture,
            $"| {Body(size)} | {compared} | {a.EndToEnd / b.EndToEnd:0.00}x | {a.Latency / b.Latency:0.00}x | {a.Published / b.Published:0.00}x | {a.PublisherRss / b.PublisherRss:0.00}x | {a.ConsumerRss / b.ConsumerRss:0.00}x |");

    // Each figure's own median: the runs' figures vary independently.
    private static Measurement Median(List<Measurement> measured, int size, PublishMode mode, string client)
    {
        var runs = measured.Where(m => m.Size == size && m.Mode == mode && m.Client == client).ToList();
        return new Measurement(size, mode, client,
            StartupRuns.Median(runs.Select(m => m.EndToEnd)), StartupRuns.Median(runs.Select(m => m.Latency)), StartupRuns.Median(runs.Select(m => m.Published)),
            StartupRuns.Median(runs.Select(m => m.PublisherRss)), StartupRuns.Median(runs.Select(m => m.ConsumerRss)));
    }

    private static string Body(int size) => size >= 1024 ? $"{size / 1024} KiB" : $"{size} B";

    private sealed record Measurement(int Size, PublishMode Mode, string Client, double EndToEnd, double Latency, double Published, double PublisherRss, double ConsumerRss);
}
