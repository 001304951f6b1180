using System.Globalization;

namespace Prewire.Build;

/// <summary>The size verbs' options, all named, as the targets pass them.</summary>
internal sealed record Options(string App, string Rid, string Binary, string Mstat, string Budget, double TolerancePercent)
{
    public static bool TryParse(IReadOnlyList<string> args, out Options options)
    {
        var named = new Dictionary<string, string>(StringComparer.Ordinal);
        for (var i = 0; i + 1 < args.Count; i += 2) named[args[i]] = args[i + 1];
        options = new Options(Get("--app"), Get("--rid"), Get("--binary"), Get("--mstat"), Get("--budget"), 2);
        if (args.Count % 2 != 0 || new[] { options.App, options.Rid, options.Binary, options.Budget }.Any(string.IsNullOrEmpty)) return false;
        if (!named.TryGetValue("--tolerance", out var tolerance)) return true;
        if (!double.TryParse(tolerance, NumberStyles.Float, CultureInfo.InvariantCulture, out var percent) || percent < 0) return false;
        options = options with { TolerancePercent = percent };
        return true;

        string Get(string name) => named.GetValueOrDefault(name, "");
    }
}
