using System.Diagnostics;
using System.Diagnostics.Metrics;

namespace Prewire.HttpEndpoint;

/// <summary>
/// The endpoint's instruments (<see cref="System.Diagnostics.Metrics"/>, meter <c>Prewire.HttpEndpoint</c>),
/// exported at <c>GET /metrics</c>: messages accepted, rejected by reason, in flight, and the time from
/// the body read to the broker's confirm.
/// </summary>
internal sealed partial class IngressMetrics : IDisposable
{
    public const string MeterName = "Prewire.HttpEndpoint";

    private readonly Meter _meter = new(MeterName);
    private readonly Counter<long> _accepted;
    private readonly Counter<long> _rejected;
    private readonly UpDownCounter<long> _inFlight;
    private readonly Histogram<double> _confirm;

    public IngressMetrics()
    {
        _accepted = _meter.CreateCounter<long>("prewire.ingress.accepted", "{message}", "Messages published and confirmed by the broker (answered 202).");
        _rejected = _meter.CreateCounter<long>("prewire.ingress.rejected", "{request}", "Requests answered 4xx or 503, by reason.");
        _inFlight = _meter.CreateUpDownCounter<long>("prewire.ingress.in_flight", "{message}", "Messages published and waiting for the broker's confirm.");
        _confirm = _meter.CreateHistogram<double>("prewire.ingress.confirm.duration", "s", "From the body read to the broker's confirm.",
            tags: null, advice: new InstrumentAdvice<double> { HistogramBucketBoundaries = [0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5] });
    }

    /// <summary>A message goes to the broker; dispose the result once it was confirmed or failed.</summary>
    public Publishing Publish()
    {
        _inFlight.Add(1);
        return new Publishing(this, Stopwatch.GetTimestamp());
    }

    /// <summary>A request refused, with a short reason (a label value: bounded, never the request's text).</summary>
    public void Rejected(string reason) => _rejected.Add(1, new KeyValuePair<string, object?>("reason", reason));

    public void Dispose() => _meter.Dispose();
}
