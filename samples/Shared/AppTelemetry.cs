#if PREWIRE_TELEMETRY
using OpenTelemetry;
using OpenTelemetry.Resources;
using OpenTelemetry.Trace;
#endif
using Prewire.Messaging;
using Serilog;

namespace Prewire.Samples;

/// <summary>
/// OpenTelemetry for an app, started only when <c>OTEL_EXPORTER_OTLP_ENDPOINT</c> (or its traces-only
/// form) is set: the spans of <see cref="MessagingTelemetry"/> and any other source the app names, exported
/// over OTLP as the standard <c>OTEL_*</c> variables say (protocol, headers, timeout, resource
/// attributes). Otherwise nothing is started, nothing listens, and no message carries a span.
/// </summary>
public static class AppTelemetry
{
    /// <summary>The variable that switches export on, as every OpenTelemetry SDK reads it.</summary>
    public const string EndpointVariable = "OTEL_EXPORTER_OTLP_ENDPOINT";

    private const string TracesEndpointVariable = "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT";

    /// <summary>Whether this process is asked to export telemetry.</summary>
    public static bool IsOn =>
        !string.IsNullOrEmpty(Environment.GetEnvironmentVariable(EndpointVariable)) || !string.IsNullOrEmpty(Environment.GetEnvironmentVariable(TracesEndpointVariable));

    /// <summary>
    /// Starts tracing for <paramref name="serviceName"/> (<c>OTEL_SERVICE_NAME</c> overrides it) when
    /// <see cref="IsOn"/>; dispose the result at exit to send what is buffered. <see langword="null"/> otherwise.
    /// </summary>
    public static IDisposable? Start(string serviceName, IEnumerable<string> sources, ILogger log)
    {
        ArgumentNullException.ThrowIfNull(log);
        if (!IsOn) return null;
#if PREWIRE_TELEMETRY
        // The service name first, then the variables: an operator's OTEL_SERVICE_NAME or OTEL_RESOURCE_ATTRIBUTES win.
        return Sdk.CreateTracerProviderBuilder()
            .ConfigureResource(resource => resource.Clear().AddService(serviceName).AddTelemetrySdk().AddEnvironmentVariableDetector())
            .AddSource([MessagingTelemetry.ActivitySourceName, .. sources])
            .AddOtlpExporter()
            .Build();
#else
        log.Warning("{Variable} is set, but this build has no exporter (built with -p:PrewireTelemetry=false): nothing is exported", EndpointVariable);
        return null;
#endif
    }
}
