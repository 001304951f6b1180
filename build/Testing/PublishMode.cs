namespace Prewire.Testing;

/// <summary>How an app is published.</summary>
public enum PublishMode
{
    /// <summary>NativeAOT: one native executable.</summary>
    Aot,

    /// <summary>Self-contained JIT build of the same framework: the runtime travels with the app.</summary>
    Jit,

    /// <summary>As <see cref="Jit"/>, with the expression-tree pipeline baseline (<c>-p:PipelineBuilder=ExpressionTree</c>).</summary>
    ExpressionTreeJit,

    /// <summary>As <see cref="Aot"/>, without OpenTelemetry's OTLP exporter (<c>-p:PrewireTelemetry=false</c>): what telemetry costs the binary.</summary>
    AotNoTelemetry,

    /// <summary>
    /// As <see cref="Aot"/>, the smallest build with TLS: without RabbitMQ.Client (<c>-p:PrewireAmqpClient=Prewire</c>),
    /// Prewire's own client only, and without the OTLP exporter (<c>-p:PrewireTelemetry=false</c>).
    /// </summary>
    AotPrewireClient,

    /// <summary>As <see cref="AotPrewireClient"/>, without TLS as well (<c>-p:PrewireTls=false</c>): amqps:// refused.</summary>
    AotPrewireClientNoTls,
}
