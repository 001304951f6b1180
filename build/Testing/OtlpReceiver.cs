using System.Collections.Concurrent;
using System.Net;

namespace Prewire.Testing;

/// <summary>
/// An OTLP/HTTP receiver on 127.0.0.1 for tests: takes what exporters POST to <c>/v1/traces</c> and
/// <c>/v1/metrics</c> (<c>application/x-protobuf</c>), decodes it (<see cref="OtlpTraceDecoder"/>,
/// <see cref="OtlpMetricDecoder"/>) and keeps the spans and data points. It is not part of any app: the
/// apps' telemetry is read back from what their exporters sent over the wire.
/// </summary>
public sealed class OtlpReceiver : IAsyncDisposable
{
    private readonly HttpListener _listener = new();
    private readonly ConcurrentQueue<OtlpSpan> _spans = new();
    private readonly ConcurrentQueue<OtlpMetricPoint> _points = new();
    private readonly Task _serving;
    private int _requests;

    public OtlpReceiver()
    {
        Endpoint = new Uri($"http://127.0.0.1:{FreePort.Next()}");
        _listener.Prefixes.Add($"{Endpoint}v1/");
        _listener.Start();
        _serving = ServeAsync();
    }

    /// <summary>What to set <c>OTEL_EXPORTER_OTLP_ENDPOINT</c> to.</summary>
    public Uri Endpoint { get; }

    /// <summary>The export requests taken so far.</summary>
    public int Requests => Volatile.Read(ref _requests);

    /// <summary>The environment an app exports to this receiver with, over OTLP/HTTP protobuf.</summary>
    public IReadOnlyDictionary<string, string> Environment(params (string Name, string Value)[] more)
    {
        var environment = new Dictionary<string, string>(StringComparer.Ordinal)
        {
            ["OTEL_EXPORTER_OTLP_ENDPOINT"] = Endpoint.ToString().TrimEnd('/'),
            ["OTEL_EXPORTER_OTLP_PROTOCOL"] = "http/protobuf",
            // Batches go out every 100 ms, not 5 s: a test reads them back soon after the work.
            ["OTEL_BSP_SCHEDULE_DELAY"] = "100",
        };
        foreach (var (name, value) in more) environment[name] = value;
        return environment;
    }

    public IReadOnlyList<OtlpSpan> Spans => [.. _spans];

    /// <summary>Every metric data point received, in the order received (cumulative sums: the last of a series is its total).</summary>
    public IReadOnlyList<OtlpMetricPoint> MetricPoints => [.. _points];

    /// <summary>Forgets what was received so far.</summary>
    public void Clear()
    {
        _spans.Clear();
        _points.Clear();
    }

    /// <summary>Waits until the spans received satisfy <paramref name="done"/>; the spans, whatever came, when the time is up.</summary>
    public async Task<IReadOnlyList<OtlpSpan>> WaitForAsync(Func<IReadOnlyList<OtlpSpan>, bool> done, TimeSpan timeout)
    {
        ArgumentNullException.ThrowIfNull(done);
        var deadline = DateTime.UtcNow + timeout;
        while (!done(Spans) && DateTime.UtcNow < deadline) await Task.Delay(50).ConfigureAwait(false);
        return Spans;
    }

    private async Task ServeAsync()
    {
        while (_listener.IsListening)
        {
            HttpListenerContext context;
            try
            {
                context = await _listener.GetContextAsync().ConfigureAwait(false);
            }
            catch (Exception e) when (e is HttpListenerException or ObjectDisposedException)
            {
                return;
            }
            using var body = new MemoryStream();
            await context.Request.InputStream.CopyToAsync(body).ConfigureAwait(false);
            var path = context.Request.Url?.AbsolutePath;
            var received = body.GetBuffer().AsSpan(0, (int)body.Length);
            var known = path is "/v1/traces" or "/v1/metrics";
            if (path == "/v1/traces") foreach (var span in OtlpTraceDecoder.Decode(received)) _spans.Enqueue(span);
            if (path == "/v1/metrics") foreach (var point in OtlpMetricDecoder.Decode(received)) _points.Enqueue(point);
            if (known) Interlocked.Increment(ref _requests);
            // An empty export response: everything accepted.
            context.Response.StatusCode = known ? 200 : 404;
            context.Response.ContentType = "application/x-protobuf";
            context.Response.Close();
        }
    }

    public async ValueTask DisposeAsync()
    {
        _listener.Stop();
        _listener.Close();
        await _serving.ConfigureAwait(false);
    }
}
