using Prewire.Testing.Otlp;

namespace Prewire.Testing;

/// <summary>
/// Decodes an OTLP trace export request (parsed by Google.Protobuf from Otlp/otlp.proto) into its spans,
/// each with its resource's <c>service.name</c> and its scope's name.
/// </summary>
public static class OtlpTraceDecoder
{
    public static List<OtlpSpan> Decode(ReadOnlySpan<byte> request) =>
    [
        .. from resource in ExportTraceRequest.Parser.ParseFrom(request).ResourceSpans
           let service = OtlpAttributes.ServiceName(resource.Resource)
           from scope in resource.ScopeSpans
           let scopeName = scope.Scope?.Name ?? ""
           from span in scope.Spans
           select Span(span, service, scopeName),
    ];

    private static OtlpSpan Span(Span span, string service, string scope) => new(
        service,
        scope,
        Convert.ToHexStringLower(span.TraceId.Span),
        Convert.ToHexStringLower(span.SpanId.Span),
        Convert.ToHexStringLower(span.ParentSpanId.Span),
        span.Name,
        (OtlpSpanKind)span.Kind,
        OtlpAttributes.ToDictionary(span.Attributes),
        span.Status?.Code ?? 0,
        span.Status?.Message ?? "",
        [.. span.Events.Select(e => e.Name)]);
}
