namespace Prewire.Testing;

/// <summary>One span as an OTLP exporter sent it, decoded by <see cref="OtlpTraceDecoder"/>; ids in lower-case hex.</summary>
public sealed record OtlpSpan(
    string ServiceName,
    string Scope,
    string TraceId,
    string SpanId,
    string ParentSpanId,
    string Name,
    OtlpSpanKind Kind,
    IReadOnlyDictionary<string, object> Attributes,
    int StatusCode,
    string StatusMessage,
    IReadOnlyList<string> Events)
{
    /// <summary>The attribute's value as text ("" when the span has none).</summary>
    public string Attribute(string key) => Attributes.TryGetValue(key, out var value) ? Convert.ToString(value, System.Globalization.CultureInfo.InvariantCulture) ?? "" : "";
}

/// <summary>OTLP's span kinds, numbered as the protocol numbers them.</summary>
public enum OtlpSpanKind
{
    Unspecified = 0,
    Internal = 1,
    Server = 2,
    Client = 3,
    Producer = 4,
    Consumer = 5,
}
