using System.Collections.Concurrent;
using System.Net;

namespace Prewire.Testing;

/// <summary>
/// An OTLP/HTTP trace receiver on 127.0.0.1 for tests: takes what an exporter POSTs to <c>/v1/traces</c>
/// (<c>application/x-protobuf</c>), decodes it (<see cref="OtlpTraceDecoder"/>) and keeps the spans. It is
/// not part of any app: the apps' spans are read back from what their exporters sent over the wire.
/// </summary>
public sealed class OtlpReceiver : IAsyncDisposable
{
    private readonly HttpListener _listener = new();
    private readonly ConcurrentQueue<OtlpSpan> _spans = new();
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
            var traces = context.Request.Url?.AbsolutePath == "/v1/traces";
            if (traces)
            {
                foreach (var span in OtlpTraceDecoder.Decode(body.GetBuffer().AsSpan(0, (int)body.Length))) _spans.Enqueue(span);
                Interlocked.Increment(ref _requests);
            }
            // An empty ExportTraceServiceResponse: everything accepted.
            context.Response.StatusCode = traces ? 200 : 404;
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
