using Prewire.Testing.Otlp;

namespace Prewire.Testing;

/// <summary>
/// Decodes an OTLP metrics export request (parsed by Google.Protobuf from Otlp/otlp.proto) into its data
/// points: a gauge's or sum's number, a histogram's count and sum, each with its metric's name and unit,
/// its resource's <c>service.name</c> and its scope's name.
/// </summary>
public static class OtlpMetricDecoder
{
    public static List<OtlpMetricPoint> Decode(ReadOnlySpan<byte> request) =>
    [
        .. from resource in ExportMetricsRequest.Parser.ParseFrom(request).ResourceMetrics
           let service = OtlpAttributes.ServiceName(resource.Resource)
           from scope in resource.ScopeMetrics
           let scopeName = scope.Scope?.Name ?? ""
           from metric in scope.Metrics
           from point in Points(metric)
           select point with { ServiceName = service, Scope = scopeName, Name = metric.Name, Unit = metric.Unit },
    ];

    private static IEnumerable<OtlpMetricPoint> Points(Metric metric) => metric.DataCase switch
    {
        Metric.DataOneofCase.Gauge => metric.Gauge.DataPoints.Select(p => Number(p, "gauge")),
        Metric.DataOneofCase.Sum => metric.Sum.DataPoints.Select(p => Number(p, "sum")),
        Metric.DataOneofCase.Histogram => metric.Histogram.DataPoints.Select(p =>
            new OtlpMetricPoint("", "", "", "", "histogram", OtlpAttributes.ToDictionary(p.Attributes), p.Sum, p.Count)),
        _ => [],
    };

    private static OtlpMetricPoint Number(NumberPoint point, string type) =>
        new("", "", "", "", type, OtlpAttributes.ToDictionary(point.Attributes),
            point.ValueCase == NumberPoint.ValueOneofCase.AsInt ? point.AsInt : point.AsDouble, 0);
}
