using OpenTelemetry;
using OpenTelemetry.Metrics;
using Prewire.Messaging;
using Prewire.Samples;

namespace Prewire.HttpEndpoint;

/// <summary>
/// What <c>GET /metrics</c> serves: OpenTelemetry's meter provider with its Prometheus exporter, over the
/// endpoint's meter, Prewire's messaging meter and the runtime's (GC, allocations, thread pool, CPU: what
/// a dashboard of a .NET service shows).
/// </summary>
internal static class ScrapedMetrics
{
    // Each metric stream gets room for this many attribute sets up front. The SDK's default, 2,000, made
    // the ~30 streams here allocate and clear megabytes before the ready line: 2.6 ms of its 13 ms on
    // linux-x64 (docs/benchmarks.md). The most any stream here carries is a few dozen (a rejection reason,
    // a GC generation); a set beyond the limit is still counted, in the SDK's overflow point.
    private const int AttributeSetsPerStream = 100;

    public static MeterProvider Build(string serviceName) =>
        Sdk.CreateMeterProviderBuilder()
            .ConfigureResource(resource => AppTelemetry.Describe(resource, serviceName))
            .AddMeter(IngressMetrics.MeterName, MessagingTelemetry.MeterName, "System.Runtime")
            .AddView(_ => new MetricStreamConfiguration { CardinalityLimit = AttributeSetsPerStream })
            .AddPrometheusExporter()
            .Build();
}
