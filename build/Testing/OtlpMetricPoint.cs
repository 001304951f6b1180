namespace Prewire.Testing;

/// <summary>
/// One data point of a metric as an OTLP exporter sent it (<see cref="OtlpMetricDecoder"/>): a sum's or
/// gauge's <see cref="Value"/>, or a histogram's <see cref="Count"/> of measurements and their sum as <see cref="Value"/>.
/// </summary>
public sealed record OtlpMetricPoint(string ServiceName, string Scope, string Name, string Unit, string Type, IReadOnlyDictionary<string, object> Attributes, double Value, ulong Count)
{
    /// <summary>The attribute's value as text ("" when the point has none).</summary>
    public string Attribute(string key) => Attributes.TryGetValue(key, out var value) ? Convert.ToString(value, System.Globalization.CultureInfo.InvariantCulture) ?? "" : "";
}
