namespace Prewire.Testing;

/// <summary>How an app is published (which clients it holds is <see cref="AmqpClients"/>, beside this).</summary>
public enum PublishMode
{
    /// <summary>NativeAOT: one native executable.</summary>
    Aot,

    /// <summary>Self-contained JIT build of the same framework: the runtime travels with the app.</summary>
    Jit,

    /// <summary>As <see cref="Jit"/>, with the expression-tree pipeline baseline (<c>-p:PipelineBuilder=ExpressionTree</c>).</summary>
    ExpressionTreeJit,

    /// <summary>
    /// As <see cref="Aot"/>, without OpenTelemetry's OTLP exporter (<c>-p:PrewireTelemetry=false</c>): what
    /// telemetry costs the binary, and the smallest build with TLS.
    /// </summary>
    AotNoTelemetry,

    /// <summary>As <see cref="AotNoTelemetry"/>, without TLS as well (<c>-p:PrewireTls=false</c>): amqps:// refused.</summary>
    AotNoTelemetryNoTls,

    /// <summary>As <see cref="Aot"/>, linked at a fixed address with its type structures stored expanded (<c>-p:PrewireFastStart=true</c>).</summary>
    AotFastStart,
}
