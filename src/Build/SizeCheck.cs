using System.Globalization;

namespace Prewire.Build;

/// <summary>
/// Holds a published binary to its budget, or records the budget: the binary's bytes against the
/// recorded ones within a tolerance (both ways: a shrink past it is a gain to lock in), and on failure
/// the assemblies whose share of the binary moved the most, from ILC's mstat file.
/// </summary>
internal static class SizeCheck
{
    // The account names this many assemblies at most, the largest moves first.
    private const int Named = 5;

    /// <summary>The verb as the targets run it.</summary>
    public static (bool Passed, IReadOnlyList<string> Lines) Run(Options options, bool record)
    {
        var (app, rid, binary, mstat, budget) = (options.Required("--app"), options.Required("--rid"), options.Required("--binary"), options.Optional("--mstat"), options.Required("--budget"));
        if (!File.Exists(binary)) throw new UsageException($"{binary} does not exist");
        if (record) return (true, [Record(app, rid, binary, mstat, budget)]);
        var (passed, line) = Check(app, rid, binary, mstat, budget, options.Number("--tolerance", 2));
        return (passed, [line]);
    }

    /// <summary>The line to print and whether the binary is within its budget.</summary>
    public static (bool Passed, string Line) Check(string app, string rid, string binary, string mstat, string budgetPath, double tolerancePercent)
    {
        var record = $"re-record it with: dotnet publish -r {rid} -p:PublishAot=true -p:PrewireRecord=true";
        if (RidFile<SizeEntry>.Read(budgetPath, BaselineJson.Default.RidFileSizeEntry)?.Find(rid) is not { } recorded)
            return (false, $"Size budget: {budgetPath} has no entry for {rid}; {record}");
        var bytes = new FileInfo(binary).Length;
        var change = (bytes - recorded.BinaryBytes) / (double)recorded.BinaryBytes;
        var figures = string.Create(CultureInfo.InvariantCulture, $"{app} {rid} is {bytes:N0} B, the budget {recorded.BinaryBytes:N0} B ({change:+0.0%;-0.0%;0.0%}, tolerance {tolerancePercent}% either way)");
        if (Math.Abs(change) * 100 <= tolerancePercent) return (true, $"Size budget: {figures}.");
        var account = File.Exists(mstat) ? $"; {Account(recorded.Assemblies, Mstat.Read(mstat).ByAssembly)}" : "";
        return (false, $"Size budget: {figures}{account}; if that is intended, {record}");
    }

    /// <summary>Writes this RID's entry into the budget file (created if missing).</summary>
    public static string Record(string app, string rid, string binary, string mstat, string budgetPath)
    {
        var bytes = new FileInfo(binary).Length;
        var assemblies = File.Exists(mstat) ? Mstat.Read(mstat).ByAssembly.Where(a => a.Value > 0).OrderBy(a => a.Key, StringComparer.Ordinal).ToDictionary() : [];
        RidFile<SizeEntry>.Record(budgetPath, new SizeEntry(rid, bytes, assemblies), BaselineJson.Default.RidFileSizeEntry);
        return string.Create(CultureInfo.InvariantCulture, $"Size budget: recorded {app} {rid} at {bytes:N0} B in {budgetPath}.");
    }

    // "grew: App +3,145,728 B (10,240 → 3,155,968), System.Private.CoreLib +1,024 B (…)"; "shrank: …" alike.
    private static string Account(IReadOnlyDictionary<string, long> before, IReadOnlyDictionary<string, long> after)
    {
        var moves = before.Keys.Union(after.Keys)
            .Select(a => (Assembly: a, Was: before.GetValueOrDefault(a), Now: after.GetValueOrDefault(a)))
            .Where(m => m.Was != m.Now)
            .OrderByDescending(m => Math.Abs(m.Now - m.Was))
            .ToList();
        if (moves.Count == 0) return "no assembly's share moved (the rest of the binary did)";
        var grew = moves.Where(m => m.Now > m.Was).Take(Named).Select(Describe).ToList();
        var shrank = moves.Where(m => m.Now < m.Was).Take(Named).Select(Describe).ToList();
        return string.Join("; ", new[] { grew.Count > 0 ? $"grew: {string.Join(", ", grew)}" : null, shrank.Count > 0 ? $"shrank: {string.Join(", ", shrank)}" : null }.OfType<string>());

        static string Describe((string Assembly, long Was, long Now) m) =>
            string.Create(CultureInfo.InvariantCulture, $"{m.Assembly} {m.Now - m.Was:+#,0;-#,0} B ({m.Was:N0} to {m.Now:N0})");
    }
}
