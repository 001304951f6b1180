using System.Text.Json;

namespace Prewire.Testing;

/// <summary>Reading the apps' JSON reports (<c>--json</c>, <c>--warmup-report</c>).</summary>
internal static class ReportJson
{
    /// <summary>The array <paramref name="name"/> of <paramref name="report"/> as numbers; null when the report has none.</summary>
    public static long[]? Numbers(JsonElement report, string name) =>
        report.TryGetProperty(name, out var values) ? [.. values.EnumerateArray().Select(v => v.GetInt64())] : null;
}
