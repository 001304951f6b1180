namespace Prewire.Testing;

/// <summary>
/// The OTLP messages both decoders meet (opentelemetry-proto, common/v1 and resource/v1): a resource's
/// service name, an instrumentation scope's name, key-value attributes and their values.
/// </summary>
internal static class OtlpFields
{
    /// <summary>
    /// The items of an export request (spans, metrics: the same layout for each signal) with their
    /// resource's service name and their scope's name: request → resource items (1) → resource (1) and
    /// scope items (2) → scope (1) and items (2).
    /// </summary>
    public static List<(string Service, string Scope, byte[] Item)> Items(ReadOnlySpan<byte> request)
    {
        var items = new List<(string, string, byte[])>();
        foreach (var resourceItems in Repeated(request, 1))
        {
            var service = Repeated(resourceItems, 1).Select(resource => ServiceName(resource)).FirstOrDefault() ?? "";
            foreach (var scopeItems in Repeated(resourceItems, 2))
            {
                var scope = Repeated(scopeItems, 1).Select(s => ScopeName(s)).FirstOrDefault() ?? "";
                items.AddRange(Repeated(scopeItems, 2).Select(item => (service, scope, item)));
            }
        }
        return items;
    }

    /// <summary>Every length-delimited field <paramref name="number"/> of a message, copied.</summary>
    public static List<byte[]> Repeated(ReadOnlySpan<byte> message, int number)
    {
        var found = new List<byte[]>();
        var reader = new ProtobufReader(message);
        while (reader.TryReadTag(out var field, out var wire))
        {
            if (field == number && wire == 2) found.Add(reader.ReadBytes().ToArray());
            else reader.Skip(wire);
        }
        return found;
    }

    // A Resource's service.name attribute (its attributes are field 1).
    private static string ServiceName(byte[] resource) =>
        Repeated(resource, 1).Select(KeyValue).FirstOrDefault(a => a.Key == "service.name").Value as string ?? "";

    // An InstrumentationScope's name (field 1).
    private static string ScopeName(byte[] scope) => Repeated(scope, 1).Select(name => System.Text.Encoding.UTF8.GetString(name)).FirstOrDefault() ?? "";

    /// <summary>Adds one KeyValue to <paramref name="attributes"/>.</summary>
    public static void Add(Dictionary<string, object> attributes, ReadOnlySpan<byte> keyValue)
    {
        var (key, value) = KeyValue(keyValue);
        attributes[key] = value;
    }

    private static (string Key, object Value) KeyValue(byte[] data) => KeyValue(data.AsSpan());

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

    // AnyValue: string 1, bool 2, int64 3, double 4; arrays and maps are not used by what the tests check.
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
}
