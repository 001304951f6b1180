namespace Prewire.Testing;

/// <summary>
/// Decodes an OTLP <c>ExportMetricsServiceRequest</c> (opentelemetry-proto, metrics/v1) into its data
/// points: a metric's name (1) and unit (3), then its gauge (5), sum (7) or histogram (9), whose points
/// (1) carry attributes (7 for numbers, 9 for histograms), a number (4 double, 6 int64) or a count (4)
/// and sum (5). Field numbers are the protocol's; a field not read here is skipped.
/// </summary>
public static class OtlpMetricDecoder
{
    public static List<OtlpMetricPoint> Decode(ReadOnlySpan<byte> request) =>
        [.. OtlpFields.Items(request).SelectMany(item => Metric(item.Item, item.Service, item.Scope))];

    private static List<OtlpMetricPoint> Metric(byte[] data, string service, string scope)
    {
        var (name, unit, points) = ("", "", new List<OtlpMetricPoint>());
        var typed = new List<(string Type, byte[] Data)>();
        var reader = new ProtobufReader(data);
        while (reader.TryReadTag(out var field, out var wire))
        {
            switch (field, wire)
            {
                case (1, 2): name = reader.ReadString(); break;
                case (3, 2): unit = reader.ReadString(); break;
                case (5, 2): typed.Add(("gauge", reader.ReadBytes().ToArray())); break;
                case (7, 2): typed.Add(("sum", reader.ReadBytes().ToArray())); break;
                case (9, 2): typed.Add(("histogram", reader.ReadBytes().ToArray())); break;
                default: reader.Skip(wire); break;
            }
        }
        foreach (var (type, body) in typed)
            foreach (var point in OtlpFields.Repeated(body, 1))
                points.Add(Point(point, type == "histogram") with { ServiceName = service, Scope = scope, Name = name, Unit = unit, Type = type });
        return points;
    }

    private static OtlpMetricPoint Point(byte[] data, bool histogram)
    {
        var attributes = new Dictionary<string, object>(StringComparer.Ordinal);
        var (value, count) = (0.0, 0UL);
        var reader = new ProtobufReader(data);
        while (reader.TryReadTag(out var field, out var wire))
        {
            switch (histogram, field, wire)
            {
                case (false, 7, 2) or (true, 9, 2): OtlpFields.Add(attributes, reader.ReadBytes()); break;
                case (false, 4, 1) or (true, 5, 1): value = BitConverter.UInt64BitsToDouble(reader.ReadFixed64()); break;
                case (false, 6, 1): value = (long)reader.ReadFixed64(); break;
                case (true, 4, 1): count = reader.ReadFixed64(); break;
                default: reader.Skip(wire); break;
            }
        }
        return new OtlpMetricPoint("", "", "", "", "", attributes, value, count);
    }
}
