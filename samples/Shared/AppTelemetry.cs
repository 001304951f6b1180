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

    private static readonly string[] _endpoints = [EndpointVariable, "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT"];

    private static readonly string[] _protocols = ["OTEL_EXPORTER_OTLP_PROTOCOL", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_EXPORTER_OTLP_METRICS_PROTOCOL"];

    /// <summary>Whether this process is asked to export telemetry.</summary>
    public static bool IsOn => _endpoints.Any(name => !string.IsNullOrEmpty(Environment.GetEnvironmentVariable(name)));

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
        Validate();
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

    // The SDK takes an endpoint or protocol it cannot use without a word (it falls back to its default
    // endpoint, or exports nothing): a deployment's typo would silently lose its telemetry.
    private static void Validate()
    {
        foreach (var name in _endpoints)
        {
            if (Environment.GetEnvironmentVariable(name) is not { Length: > 0 } value) continue;
            if (!Uri.TryCreate(value, UriKind.Absolute, out var uri) || uri.Scheme is not ("http" or "https") || uri.Host.Length == 0)
                throw new AppException($"{name} is '{value}': not an http:// or https:// address", ExitCodes.Usage);
        }
        foreach (var name in _protocols)
        {
            if (Environment.GetEnvironmentVariable(name) is { Length: > 0 } value && value is not ("grpc" or "http/protobuf"))
                throw new AppException($"{name} is '{value}': grpc or http/protobuf", ExitCodes.Usage);
        }
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
