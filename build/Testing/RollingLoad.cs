using System.Collections.Concurrent;
using System.Diagnostics;
using System.Globalization;
using System.Net;

namespace Prewire.Testing;

/// <summary>
/// The rolling restart's load client: posts messages with ids of its own (the body, <c>rr-0000001</c>)
/// at a steady rate, each to the next endpoint in turn, and does what a real client does with a 503
/// or a refused connection: tries again, on the other endpoint, until one answers 202.
/// </summary>
internal sealed class RollingLoad(IReadOnlyList<Uri> endpoints, int rate) : IDisposable
{
    // A message not accepted after this many tries is given up and counted as failed (never seen so far).
    private const int MostAttempts = 600;

    private readonly HttpClient _http = new(new SocketsHttpHandler { PooledConnectionLifetime = TimeSpan.FromSeconds(10) }) { Timeout = TimeSpan.FromSeconds(15) };
    private readonly Stopwatch _clock = Stopwatch.StartNew();
    private readonly ConcurrentDictionary<string, byte> _accepted = new();
    private readonly ConcurrentBag<(double StartedSeconds, double Ms)> _latencies = [];
    private int _unavailable;
    private int _refused;
    private int _retries;
    private int _failed;

    public TimeSpan Now => _clock.Elapsed;

    public IReadOnlyCollection<string> Accepted => (IReadOnlyCollection<string>)_accepted.Keys;

    public int Unavailable => _unavailable;

    public int Refused => _refused;

    public int Retries => _retries;

    public int Failed => _failed;

    /// <summary>Every POST's start (seconds into the run) and how long its answer took, 503s and refusals included.</summary>
    public IReadOnlyCollection<(double StartedSeconds, double Ms)> Latencies => _latencies;

    /// <summary>Posts until <paramref name="until"/> returns true, then waits for every message still being tried.</summary>
    public async Task RunAsync(Func<bool> until, CancellationToken cancellationToken)
    {
        var sending = new List<Task>();
        var interval = TimeSpan.FromSeconds(1.0 / rate);
        for (var i = 0; !until(); i++)
        {
            sending.Add(SendAsync(string.Create(CultureInfo.InvariantCulture, $"rr-{i:D7}"), i, cancellationToken));
            var next = interval * (i + 1) - _clock.Elapsed;
            if (next > TimeSpan.Zero) await Task.Delay(next, cancellationToken).ConfigureAwait(false);
        }
        await Task.WhenAll(sending).ConfigureAwait(false);
    }

    private async Task SendAsync(string id, int first, CancellationToken cancellationToken)
    {
        for (var attempt = 0; attempt < MostAttempts; attempt++)
        {
            if (attempt > 0)
            {
                Interlocked.Increment(ref _retries);
                await Task.Delay(50, cancellationToken).ConfigureAwait(false);
            }
            var started = _clock.Elapsed;
            try
            {
                using var content = new StringContent(id, System.Text.Encoding.UTF8, "text/plain");
                using var response = await _http.PostAsync(new Uri(endpoints[(first + attempt) % endpoints.Count], "messages/rolling"), content, cancellationToken).ConfigureAwait(false);
                _latencies.Add((started.TotalSeconds, (_clock.Elapsed - started).TotalMilliseconds));
                if (response.StatusCode == HttpStatusCode.Accepted)
                {
                    _accepted.TryAdd(id, 0);
                    return;
                }
                if (response.StatusCode == HttpStatusCode.ServiceUnavailable) Interlocked.Increment(ref _unavailable);
                else throw new InvalidOperationException($"POST {id} answered {(int)response.StatusCode}: {await response.Content.ReadAsStringAsync(cancellationToken).ConfigureAwait(false)}");
            }
            catch (Exception e) when (e is HttpRequestException or TaskCanceledException && !cancellationToken.IsCancellationRequested)
            {
                // Refused (the instance is restarting) or cut off: nothing was promised, so send it again.
                _latencies.Add((started.TotalSeconds, (_clock.Elapsed - started).TotalMilliseconds));
                Interlocked.Increment(ref _refused);
            }
        }
        Interlocked.Increment(ref _failed);
    }

    public void Dispose() => _http.Dispose();
}
