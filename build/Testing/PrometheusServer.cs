using System.Globalization;
using System.Net.Http.Json;
using System.Text.Json;

namespace Prewire.Testing;

/// <summary>
/// A real Prometheus server (Debian's <c>prometheus</c>) on 127.0.0.1 for tests: it scrapes one target's
/// <c>/metrics</c> every second into a throwaway store, and answers PromQL over its HTTP API.
/// </summary>
public sealed class PrometheusServer : IAsyncDisposable
{
    private const string Executable = "/usr/bin/prometheus";

    private readonly AppProcess _process;
    private readonly DirectoryInfo _directory;
    private readonly HttpClient _http;

    private PrometheusServer(AppProcess process, DirectoryInfo directory, Uri address) =>
        (_process, _directory, _http) = (process, directory, new HttpClient { BaseAddress = address, Timeout = TimeSpan.FromSeconds(10) });

    /// <summary>Starts the server scraping <paramref name="target"/> (host:port) as job <paramref name="job"/>, and waits until it is ready.</summary>
    public static async Task<PrometheusServer> StartAsync(string target, string job)
    {
        if (!File.Exists(Executable)) throw new InvalidOperationException($"{Executable} is not installed: run build/bootstrap.sh (Debian's prometheus package)");
        var directory = Directory.CreateTempSubdirectory("prewire-prometheus-");
        var config = Path.Combine(directory.FullName, "prometheus.yml");
        await File.WriteAllTextAsync(config, $"""
            global:
              scrape_interval: 1s
            scrape_configs:
              - job_name: {job}
                static_configs:
                  - targets: ['{target}']
            """).ConfigureAwait(false);
        var address = new Uri($"http://127.0.0.1:{FreePort.Next()}/");
        var process = AppProcess.Start(Executable,
            [$"--config.file={config}", $"--storage.tsdb.path={Path.Combine(directory.FullName, "data")}", $"--web.listen-address={address.Authority}", "--log.level=warn"]);
        var server = new PrometheusServer(process, directory, address);
        var deadline = DateTime.UtcNow + TimeSpan.FromSeconds(30);
        while (!await server.IsReadyAsync().ConfigureAwait(false))
        {
            if (process.HasExited || DateTime.UtcNow > deadline)
            {
                await server.DisposeAsync().ConfigureAwait(false);
                throw new InvalidOperationException($"prometheus did not become ready: {process.Stderr}");
            }
            await Task.Delay(100).ConfigureAwait(false);
        }
        return server;
    }

    /// <summary>The result vector of an instant PromQL query: each series' labels and value.</summary>
    public async Task<IReadOnlyList<(IReadOnlyDictionary<string, string> Labels, double Value)>> QueryAsync(string promql)
    {
        using var json = await _http.GetFromJsonAsync<JsonDocument>($"api/v1/query?query={Uri.EscapeDataString(promql)}").ConfigureAwait(false)
            ?? throw new InvalidDataException("prometheus answered nothing");
        return [.. json.RootElement.GetProperty("data").GetProperty("result").EnumerateArray().Select(series => (
            (IReadOnlyDictionary<string, string>)series.GetProperty("metric").EnumerateObject().ToDictionary(l => l.Name, l => l.Value.GetString() ?? ""),
            double.Parse(series.GetProperty("value")[1].GetString()!, CultureInfo.InvariantCulture)))];
    }

    /// <summary>Queries until <paramref name="done"/> holds (a scrape every second), returning the last answer either way.</summary>
    public async Task<IReadOnlyList<(IReadOnlyDictionary<string, string> Labels, double Value)>> WaitForAsync(string promql,
        Func<IReadOnlyList<(IReadOnlyDictionary<string, string> Labels, double Value)>, bool> done, TimeSpan timeout)
    {
        ArgumentNullException.ThrowIfNull(done);
        var deadline = DateTime.UtcNow + timeout;
        while (true)
        {
            var result = await QueryAsync(promql).ConfigureAwait(false);
            if (done(result) || DateTime.UtcNow > deadline) return result;
            await Task.Delay(250).ConfigureAwait(false);
        }
    }

    private async Task<bool> IsReadyAsync()
    {
        try
        {
            using var response = await _http.GetAsync(new Uri("-/ready", UriKind.Relative)).ConfigureAwait(false);
            return response.IsSuccessStatusCode;
        }
        catch (HttpRequestException)
        {
            return false;
        }
    }

    public async ValueTask DisposeAsync()
    {
        _http.Dispose();
        await _process.DisposeAsync().ConfigureAwait(false);
        _directory.Delete(recursive: true);
    }
}
