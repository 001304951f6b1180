using System.Globalization;

namespace Prewire.Testing;

/// <summary>
/// User-space instructions a run executes, counted by valgrind's cachegrind without its cache
/// simulation: the same count for the same binary and arguments however busy the machine is (the
/// Publisher's start 15,860,217 and 15,860,652 in two runs, idle), where a wall clock here moves by
/// milliseconds. Only native runs: valgrind cannot run an arm64 binary on this x64 host.
/// </summary>
public static class Cachegrind
{
    // valgrind's address space has no room for the 256 GB the server GC (the web app's) reserves up
    // front: that mmap fails and the runtime exits 255 before Main. A 4 GB range starts the same way.
    private static readonly Dictionary<string, string> _environment = new() { ["DOTNET_GCRegionRange"] = "100000000" };

    // A run under cachegrind takes 50-100 times as long (the web app's 16 ms start: ~1.5 s).
    private const int Slowdown = 10;

    /// <summary>Whether runs of <paramref name="rid"/> can be counted here: valgrind is installed and the RID is this host's.</summary>
    public static bool Counts(string rid) => !Qemu.Emulates(rid) && Installed;

    private static bool Installed { get; } = Environment.GetEnvironmentVariable("PATH")?.Split(':').Any(d => File.Exists(Path.Combine(d, "valgrind"))) == true;

    /// <summary>Instructions from spawn to exit (to SIGTERM at the ready line and exit, with <paramref name="stopAtReady"/>).</summary>
    public static async Task<long> CountAsync(string executable, string rid, IReadOnlyList<string> args, bool stopAtReady)
    {
        var output = await WatchedRun.RunAsync(executable, rid, args, stopAtReady,
            file => ["valgrind", "--tool=cachegrind", "--cache-sim=no", $"--cachegrind-out-file={file}"], Slowdown, launcherForks: false, _environment).ConfigureAwait(false);
        // The out file's last lines: "events: Ir" ... "summary: 15860217".
        var summary = output.Split('\n').LastOrDefault(l => l.StartsWith("summary:", StringComparison.Ordinal))
            ?? throw new InvalidDataException($"cachegrind wrote no summary line:\n{output}");
        return long.Parse(summary["summary:".Length..].Trim(), CultureInfo.InvariantCulture);
    }
}
