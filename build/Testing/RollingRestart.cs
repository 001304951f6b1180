using System.Diagnostics;
using System.Globalization;
using System.Net;
using System.Text.RegularExpressions;

namespace Prewire.Testing;

/// <summary>
/// A rolling restart on loopback: a three-node cluster, two HttpEndpoints and two Consumers (workers),
/// a load client posting ids of its own the whole time; meanwhile each app instance is restarted in
/// turn (SIGTERM, start, ready) and each node the way the cluster operator rolls it. At the end every
/// id answered 202 must have been handled: read from the handler's own lines (its only effect), and
/// the queue and its dead-letter queue read empty by pika, not from any app's counts.
/// </summary>
public static partial class RollingRestart
{
    private static readonly TimeSpan _ready = TimeSpan.FromSeconds(30);

    /// <summary>Runs it; the load lasts <paramref name="load"/> or until the last restart is done, whichever is later.</summary>
    public static async Task<RollingRestartResult> RunAsync(string endpointExecutable, string consumerExecutable, TimeSpan load, int rate, TextWriter log, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(log);
        await using var cluster = await BrokerCluster.StartAsync(Path.Combine(Repo.Artifacts, "rolling-restart", $"cluster-{Guid.NewGuid():N}")).ConfigureAwait(false);
        var queue = $"prewire.rolling.{Guid.NewGuid():N}";
        var ports = Enumerable.Range(0, 4).Select(_ => FreePort.Next()).ToArray();
        var instances = new[]
        {
            Instance.Endpoint("endpoint-1", endpointExecutable, cluster.Uri, queue, ports[0]),
            Instance.Endpoint("endpoint-2", endpointExecutable, cluster.Uri, queue, ports[1]),
            Instance.Consumer("consumer-1", consumerExecutable, cluster.Uri, queue, ports[2]),
            Instance.Consumer("consumer-2", consumerExecutable, cluster.Uri, queue, ports[3]),
        };
        try
        {
            foreach (var instance in instances) await instance.StartAsync(cancellationToken).ConfigureAwait(false);
            log.WriteLine($"rolling restart: cluster of 3, 2 endpoints, 2 consumers up; posting {rate}/s for {load.TotalSeconds:0} s");

            using var client = new RollingLoad([.. instances.Where(i => i.Address is not null).Select(i => i.Address!)], rate);
            var restarting = true;
            var posting = client.RunAsync(() => !restarting && client.Now >= load, cancellationToken);
            var firstRestart = Math.Max(3, load.TotalSeconds / 8);
            await Task.Delay(TimeSpan.FromSeconds(firstRestart), cancellationToken).ConfigureAwait(false);
            var windows = await RestartEachAsync(instances, cluster, client, log, cancellationToken).ConfigureAwait(false);
            restarting = false;
            await posting.ConfigureAwait(false);

            var accepted = client.Accepted.ToHashSet();
            await WaitForHandledAsync(instances, accepted, cancellationToken).ConfigureAwait(false);
            foreach (var instance in instances) await instance.StopAsync().ConfigureAwait(false);
            var handled = HandledIds(instances);
            var left = await CountAsync(cluster, queue).ConfigureAwait(false) + await CountAsync(cluster, $"{queue}.dead-letter").ConfigureAwait(false);

            var latencies = client.Latencies;
            return new RollingRestartResult(
                accepted.Count, accepted.Count(id => !handled.ContainsKey(id)), handled.Values.Sum(n => n - 1),
                client.Unavailable, client.Refused, client.Retries, client.Failed, left,
                Percentiles(latencies.Where(l => l.StartedSeconds < firstRestart)),
                Percentiles(latencies.Where(l => windows.Any(w => l.StartedSeconds >= w.From && l.StartedSeconds <= w.To))));
        }
        finally
        {
            foreach (var instance in instances) await instance.DisposeAsync().ConfigureAwait(false);
        }
    }

    // Each app instance in turn, then each node as the operator rolls them, a second apart; when each
    // restart began and ended, on the load client's clock.
    private static async Task<List<(double From, double To)>> RestartEachAsync(Instance[] instances, BrokerCluster cluster, RollingLoad client, TextWriter log, CancellationToken cancellationToken)
    {
        var windows = new List<(double From, double To)>();
        var steps = instances.Select(i => (i.Name, (Func<Task>)(() => i.RestartAsync(cancellationToken))))
            .Concat(Enumerable.Range(1, 3).Select(n => ($"node-{n}", (Func<Task>)(() => cluster.RestartAsync(n)))));
        foreach (var (name, restart) in steps)
        {
            var from = client.Now.TotalSeconds;
            await restart().ConfigureAwait(false);
            windows.Add((from, client.Now.TotalSeconds));
            log.WriteLine(string.Create(CultureInfo.InvariantCulture, $"rolling restart: {name} restarted in {client.Now.TotalSeconds - from:0.0} s (at {from:0.0} s)"));
            await Task.Delay(TimeSpan.FromSeconds(1), cancellationToken).ConfigureAwait(false);
        }
        return windows;
    }

    // The Consumers' handler writes one line per message handled; the load client's id is its text.
    private static Dictionary<string, int> HandledIds(IEnumerable<Instance> instances)
    {
        var handled = new Dictionary<string, int>();
        foreach (var output in instances.Where(i => i.Address is null).SelectMany(i => i.Outputs))
            foreach (Match match in HandledLine().Matches(output))
                handled[match.Groups["id"].Value] = handled.GetValueOrDefault(match.Groups["id"].Value) + 1;
        return handled;
    }

    // Up to a minute for the Consumers to work off what is queued; what is missing after it counts as lost.
    private static async Task WaitForHandledAsync(Instance[] instances, HashSet<string> accepted, CancellationToken cancellationToken)
    {
        var waited = Stopwatch.StartNew();
        while (!accepted.All(HandledIds(instances).ContainsKey) && waited.Elapsed < TimeSpan.FromSeconds(60))
            await Task.Delay(500, cancellationToken).ConfigureAwait(false);
    }

    private static Task<int> CountAsync(BrokerCluster cluster, string queue) => Pika.CountAsync(cluster.Uris[0], queue);

    private static (double, double) Percentiles(IEnumerable<(double StartedSeconds, double Ms)> latencies)
    {
        var sorted = latencies.Select(l => l.Ms).Order().ToArray();
        return sorted.Length == 0 ? (double.NaN, double.NaN) : (sorted[(sorted.Length - 1) / 2], sorted[(int)Math.Ceiling(sorted.Length * 0.99) - 1]);
    }

    [GeneratedRegex(@"DBG\] Handled .*?(?<id>rr-\d{7})")]
    private static partial Regex HandledLine();

    /// <summary>One app instance: its command line, how to tell it is ready, and the output of each run.</summary>
    private sealed class Instance(string name, string executable, string[] args, Uri? address, IPEndPoint? readiness) : IAsyncDisposable
    {
        private readonly List<AppProcess> _runs = [];
        private static readonly HttpClient _probe = new() { Timeout = TimeSpan.FromSeconds(2) };

        public string Name => name;

        public Uri? Address => address;

        public IEnumerable<string> Outputs { get { lock (_runs) return [.. _runs.Select(r => r.Stdout)]; } }

        public static Instance Endpoint(string name, string executable, string broker, string queue, int port) =>
            new(name, executable, ["--urls", $"http://127.0.0.1:{port}", "--uri", broker, "--queue", queue], new Uri($"http://127.0.0.1:{port}/"), null);

        public static Instance Consumer(string name, string executable, string broker, string queue, int port) =>
            new(name, executable, ["--uri", broker, "--queue", queue, "--log-level", "Debug", "--readiness-port", $"127.0.0.1:{port}"], null, new IPEndPoint(IPAddress.Loopback, port));

        public async Task StartAsync(CancellationToken cancellationToken)
        {
            var run = AppProcess.Start(executable, args);
            lock (_runs) _runs.Add(run);
            await run.WaitForReadyAsync(_ready).ConfigureAwait(false);
            // Ready as an orchestrator sees it: the endpoint's /health/ready, the Consumer's readiness port.
            var waited = Stopwatch.StartNew();
            while (!await IsReadyAsync(cancellationToken).ConfigureAwait(false))
            {
                if (waited.Elapsed > _ready) throw new TimeoutException($"{name} not ready within {_ready.TotalSeconds} s:\n{run.Stdout}\n{run.Stderr}");
                await Task.Delay(100, cancellationToken).ConfigureAwait(false);
            }
        }

        public async Task RestartAsync(CancellationToken cancellationToken)
        {
            await StopAsync().ConfigureAwait(false);
            await StartAsync(cancellationToken).ConfigureAwait(false);
        }

        public async Task StopAsync()
        {
            AppProcess current;
            lock (_runs) current = _runs[^1];
            if (current.HasExited) return;
            current.Terminate();
            var exitCode = await current.WaitForExitAsync(TimeSpan.FromSeconds(10)).ConfigureAwait(false);
            if (exitCode != 0) throw new InvalidOperationException($"{name} exited with {exitCode} on SIGTERM:\n{current.Stderr}");
        }

        private async Task<bool> IsReadyAsync(CancellationToken cancellationToken)
        {
            if (address is null) return await PortProbe.AcceptsAsync(readiness!, cancellationToken).ConfigureAwait(false);
            try
            {
                using var response = await _probe.GetAsync(new Uri(address, "health/ready"), cancellationToken).ConfigureAwait(false);
                return response.StatusCode == HttpStatusCode.OK;
            }
            catch (Exception e) when (e is HttpRequestException or TaskCanceledException)
            {
                return false;
            }
        }

        public async ValueTask DisposeAsync()
        {
            AppProcess[] runs;
            lock (_runs) runs = [.. _runs];
            foreach (var run in runs) await run.DisposeAsync().ConfigureAwait(false);
        }
    }
}
