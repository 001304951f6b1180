namespace Prewire.Testing;

/// <summary>
/// Decodes an OTLP <c>ExportTraceServiceRequest</c> (opentelemetry-proto, trace/v1): resource spans →
/// the resource's <c>service.name</c> → scope spans → spans with their attributes, status and event
/// names. Field numbers are the protocol's; a field not read here is skipped.
/// </summary>
public static class OtlpTraceDecoder
{
    public static List<OtlpSpan> Decode(ReadOnlySpan<byte> request) =>
        [.. OtlpFields.Items(request).Select(item => Span(item.Item, item.Service, item.Scope))];

    private static OtlpSpan Span(ReadOnlySpan<byte> data, string service, string scope)
    {
        string traceId = "", spanId = "", parent = "", name = "", statusMessage = "";
        var (kind, statusCode, events) = (OtlpSpanKind.Unspecified, 0, new List<string>());
        var attributes = new Dictionary<string, object>(StringComparer.Ordinal);
        var reader = new ProtobufReader(data);
        while (reader.TryReadTag(out var field, out var wire))
        {
            switch (field, wire)
            {
                case (1, 2): traceId = Convert.ToHexStringLower(reader.ReadBytes()); break;
                case (2, 2): spanId = Convert.ToHexStringLower(reader.ReadBytes()); break;
                case (4, 2): parent = Convert.ToHexStringLower(reader.ReadBytes()); break;
                case (5, 2): name = reader.ReadString(); break;
                case (6, 0): kind = (OtlpSpanKind)reader.ReadVarint(); break;
                case (9, 2): OtlpFields.Add(attributes, reader.ReadBytes()); break;
                case (11, 2): events.Add(EventName(reader.ReadBytes())); break;
                case (15, 2): (statusCode, statusMessage) = Status(reader.ReadBytes()); break;
                default: reader.Skip(wire); break;
            }
        }
        return new OtlpSpan(service, scope, traceId, spanId, parent, name, kind, attributes, statusCode, statusMessage, events);
    }

    private static string EventName(ReadOnlySpan<byte> data)
    {
        var reader = new ProtobufReader(data);
        while (reader.TryReadTag(out var field, out var wire))
        {
            if (field == 2 && wire == 2) return reader.ReadString();
            reader.Skip(wire);
        }
        return "";
    }

    private static (int Code, string Message) Status(ReadOnlySpan<byte> data)
    {
        var (code, message) = (0, "");
        var reader = new ProtobufReader(data);
        while (reader.TryReadTag(out var field, out var wire))
        {
            if (field == 2 && wire == 2) message = reader.ReadString();
            else if (field == 3 && wire == 0) code = (int)reader.ReadVarint();
            else reader.Skip(wire);
        }
        return (code, message);
    }
}
