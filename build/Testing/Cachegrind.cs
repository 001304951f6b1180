using Prewire.Build;

namespace Prewire.Testing;

/// <summary>
/// User-space instructions a run executes, counted by valgrind's cachegrind without its cache
/// simulation: the same count for the same binary and arguments however busy the machine is (the
/// Publisher's start 15,860,217 and 15,860,652 in two runs, idle), where a wall clock here moves by
/// milliseconds. Only native runs: valgrind cannot run an arm64 binary on this x64 host.
/// </summary>
public static class Cachegrind
{
    // A run under cachegrind takes 50-100 times as long (the web app's 16 ms start: ~1.5 s).
    private const int Slowdown = 10;

    /// <summary>Whether runs of <paramref name="rid"/> can be counted here: valgrind and taskset are installed and the RID is this host's.</summary>
    public static bool Counts(string rid) => !Qemu.Emulates(rid) && Installed;

    private static bool Installed { get; } = StartupInstruments.CanCount;

    /// <summary>Instructions from spawn to exit (to SIGTERM at the ready line and exit, with <paramref name="stopAtReady"/>).</summary>
    public static async Task<long> CountAsync(string executable, string rid, IReadOnlyList<string> args, bool stopAtReady)
    {
        // The command, its environment and reading the count are the Prewire.Build package's (one way to count).
        var output = await WatchedRun.RunAsync(executable, rid, args, stopAtReady,
            StartupInstruments.Cachegrind, Slowdown, launcherForks: false, StartupInstruments.CachegrindEnvironment).ConfigureAwait(false);
        return StartupInstruments.ReadCount(output);
    }
}
