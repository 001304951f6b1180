using Prewire.Harness;

namespace Prewire.AotSmoke;

/// <summary>build/trim-warnings.allowlist, read the way the gate reads it.</summary>
internal static class Allowlist
{
    public static IReadOnlyList<(TrimWarning Warning, string Assembly)> Entries { get; } =
        File.ReadLines(Path.Combine(Repo.Root, "build", "trim-warnings.allowlist"))
            .Select(l => l.Trim())
            .Where(l => l.Length > 0 && l[0] != '#')
            .Select(l => l.Split(" | "))
            .Select(p => (new TrimWarning(p[0].Trim(), p[2].Trim()), p[1].Trim()))
            .ToList();
}
