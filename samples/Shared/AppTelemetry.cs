using OpenTelemetry.Resources;
using OpenTelemetry.Trace;
#if PREWIRE_TELEMETRY
using OpenTelemetry;
using OpenTelemetry.Metrics;
#endif
using Prewire.Messaging;
using Serilog;

namespace Prewire.Samples;

/// <summary>
/// OpenTelemetry for an app, started only when <c>OTEL_EXPORTER_OTLP_ENDPOINT</c> (or a signal's own
/// endpoint variable) is set: the spans and metrics of <see cref="MessagingTelemetry"/> and what else
/// the app adds, exported over OTLP as the standard <c>OTEL_*</c> variables say
/// (protocol, headers, timeout, export interval, resource attributes). Otherwise nothing is started,
/// nothing listens, and no message carries a span.
/// </summary>
public static class AppTelemetry
{
    /// <summary>The variable that switches export on, as every OpenTelemetry SDK reads it.</summary>
    public const string EndpointVariable = "OTEL_EXPORTER_OTLP_ENDPOINT";

    private static readonly string[] _signalEndpoints = ["OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT"];

    /// <summary>Whether this process is asked to export telemetry.</summary>
    public static bool IsOn => new[] { EndpointVariable }.Concat(_signalEndpoints).Any(name => !string.IsNullOrEmpty(Environment.GetEnvironmentVariable(name)));

    /// <summary>The app's resource: <paramref name="serviceName"/>, then the SDK, then the variables, so an operator's <c>OTEL_SERVICE_NAME</c> or <c>OTEL_RESOURCE_ATTRIBUTES</c> win.</summary>
    public static ResourceBuilder Describe(ResourceBuilder resource, string serviceName)
    {
        ArgumentNullException.ThrowIfNull(resource);
        return resource.Clear().AddService(serviceName).AddTelemetrySdk().AddEnvironmentVariableDetector();
    }

    /// <summary>
    /// Starts tracing and metrics for <paramref name="serviceName"/> when <see cref="IsOn"/>; dispose the
    /// result at exit to send what is buffered. <see langword="null"/> otherwise.
    /// </summary>
    public static IDisposable? Start(string serviceName, Action<TracerProviderBuilder>? configureTracing, IEnumerable<string> meters, ILogger log)
    {
        ArgumentNullException.ThrowIfNull(log);
        if (!IsOn) return null;
#if PREWIRE_TELEMETRY
        var tracing = Sdk.CreateTracerProviderBuilder()
            .ConfigureResource(resource => Describe(resource, serviceName))
            .AddSource(MessagingTelemetry.ActivitySourceName);
        configureTracing?.Invoke(tracing);
        var tracer = tracing.AddOtlpExporter().Build();
        var metrics = Sdk.CreateMeterProviderBuilder()
            .ConfigureResource(resource => Describe(resource, serviceName))
            .AddMeter([MessagingTelemetry.MeterName, .. meters])
            .AddOtlpExporter()
            .Build();
        return new Providers(tracer, metrics);
#else
        _ = (serviceName, configureTracing, meters);
        log.Warning("{Variable} is set, but this build has no exporter (built with -p:PrewireTelemetry=false): nothing is exported", EndpointVariable);
        return null;
#endif
    }

    // Metrics first: their last export then still has the spans' exporter's process around it, and each flushes on dispose.
    private sealed class Providers(IDisposable tracing, IDisposable metrics) : IDisposable
    {
        public void Dispose()
        {
            metrics.Dispose();
            tracing.Dispose();
        }
    }
}
