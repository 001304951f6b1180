namespace Prewire.Testing;

/// <summary>
/// Decodes an OTLP <c>ExportTraceServiceRequest</c> (opentelemetry-proto, trace/v1): resource spans →
/// the resource's <c>service.name</c> → scope spans → spans with their attributes, status and event
/// names. Field numbers are the protocol's; a field not read here is skipped.
/// </summary>
public static class OtlpTraceDecoder
{
    public static List<OtlpSpan> Decode(ReadOnlySpan<byte> request)
    {
        var spans = new List<OtlpSpan>();
        var reader = new ProtobufReader(request);
        while (reader.TryReadTag(out var field, out var wire))
        {
            if (field == 1 && wire == 2) ResourceSpans(reader.ReadBytes(), spans);
            else reader.Skip(wire);
        }
        return spans;
    }

    private static void ResourceSpans(ReadOnlySpan<byte> data, List<OtlpSpan> spans)
    {
        var (service, scopes) = ("", new List<byte[]>());
        var reader = new ProtobufReader(data);
        while (reader.TryReadTag(out var field, out var wire))
        {
            if (field == 1 && wire == 2) service = Attributes(reader.ReadBytes(), attributeField: 1).GetValueOrDefault("service.name") as string ?? "";
            else if (field == 2 && wire == 2) scopes.Add(reader.ReadBytes().ToArray());
            else reader.Skip(wire);
        }
        foreach (var scope in scopes) ScopeSpans(scope, service, spans);
    }

    private static void ScopeSpans(ReadOnlySpan<byte> data, string service, List<OtlpSpan> spans)
    {
        var (scope, raw) = ("", new List<byte[]>());
        var reader = new ProtobufReader(data);
        while (reader.TryReadTag(out var field, out var wire))
        {
            if (field == 1 && wire == 2) scope = ScopeName(reader.ReadBytes());
            else if (field == 2 && wire == 2) raw.Add(reader.ReadBytes().ToArray());
            else reader.Skip(wire);
        }
        spans.AddRange(raw.Select(span => Span(span, service, scope)));
    }

    private static string ScopeName(ReadOnlySpan<byte> data)
    {
        var reader = new ProtobufReader(data);
        while (reader.TryReadTag(out var field, out var wire))
        {
            if (field == 1 && wire == 2) return reader.ReadString();
            reader.Skip(wire);
        }
        return "";
    }

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
                case (9, 2): foreach (var (key, value) in Attributes(reader.ReadBytes(), attributeField: -1)) attributes[key] = value; break;
                case (11, 2): events.Add(EventName(reader.ReadBytes())); break;
                case (15, 2): (statusCode, statusMessage) = Status(reader.ReadBytes()); break;
                default: reader.Skip(wire); break;
            }
        }
        return new OtlpSpan(service, scope, traceId, spanId, parent, name, kind, attributes, statusCode, statusMessage, events);
    }

    // A message whose field attributeField holds KeyValues (a Resource's 1), or, with -1, one KeyValue itself (a span's repeated 9).
    private static Dictionary<string, object> Attributes(ReadOnlySpan<byte> data, int attributeField)
    {
        var attributes = new Dictionary<string, object>(StringComparer.Ordinal);
        if (attributeField < 0)
        {
            var (key, value) = KeyValue(data);
            attributes[key] = value;
            return attributes;
        }
        var reader = new ProtobufReader(data);
        while (reader.TryReadTag(out var field, out var wire))
        {
            if (field == attributeField && wire == 2)
            {
                var (key, value) = KeyValue(reader.ReadBytes());
                attributes[key] = value;
            }
            else reader.Skip(wire);
        }
        return attributes;
    }

    private static (string Key, object Value) KeyValue(ReadOnlySpan<byte> data)
    {
        var (key, value) = ("", (object)"");
        var reader = new ProtobufReader(data);
        while (reader.TryReadTag(out var field, out var wire))
        {
            if (field == 1 && wire == 2) key = reader.ReadString();
            else if (field == 2 && wire == 2) value = AnyValue(reader.ReadBytes());
            else reader.Skip(wire);
        }
        return (key, value);
    }

    // AnyValue: string 1, bool 2, int64 3, double 4; arrays and maps are not used by the spans checked.
    private static object AnyValue(ReadOnlySpan<byte> data)
    {
        var reader = new ProtobufReader(data);
        while (reader.TryReadTag(out var field, out var wire))
        {
            switch (field, wire)
            {
                case (1, 2): return reader.ReadString();
                case (2, 0): return reader.ReadVarint() != 0;
                case (3, 0): return (long)reader.ReadVarint();
                case (4, 1): return BitConverter.UInt64BitsToDouble(reader.ReadFixed64());
                default: reader.Skip(wire); break;
            }
        }
        return "";
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
