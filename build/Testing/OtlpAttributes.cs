using Google.Protobuf.Collections;
using Prewire.Testing.Otlp;

namespace Prewire.Testing;

/// <summary>OTLP key-value attributes as the decoded spans and points hold them.</summary>
internal static class OtlpAttributes
{
    public static Dictionary<string, object> ToDictionary(RepeatedField<KeyValue> attributes)
    {
        var values = new Dictionary<string, object>(StringComparer.Ordinal);
        foreach (var attribute in attributes) values[attribute.Key] = Value(attribute.Value);
        return values;
    }

    /// <summary>A resource's <c>service.name</c>, "" when it has none.</summary>
    public static string ServiceName(Resource? resource) =>
        resource?.Attributes.FirstOrDefault(a => a.Key == "service.name")?.Value?.StringValue ?? "";

    // Arrays and maps are left out of otlp.proto: nothing the tests check carries them.
    private static object Value(AnyValue? value) => value?.ValueCase switch
    {
        AnyValue.ValueOneofCase.BoolValue => value.BoolValue,
        AnyValue.ValueOneofCase.IntValue => value.IntValue,
        AnyValue.ValueOneofCase.DoubleValue => value.DoubleValue,
        AnyValue.ValueOneofCase.StringValue => value.StringValue,
        _ => "",
    };
}
