using System.Diagnostics;
using System.Globalization;

namespace Prewire.Build;

/// <summary>
/// How a start is measured, in one place for the package's gate and for any harness that measures
/// starts its own way (this repository's tests): the priority timed runs are spawned at, qemu for
/// linux-arm64 binaries on an x64 host, cachegrind's command line and count, and the alternating pairs
/// whose least times are kept.
/// </summary>
public static class StartupInstruments
{
    /// <summary>The C runtime of Debian's arm64 cross packages, given to qemu with <c>-L</c>.</summary>
    public const string Arm64SysRoot = "/usr/aarch64-linux-gnu";

    /// <summary>The niceness timed runs are spawned at, where this user may raise a priority.</summary>
    public const int Niceness = -20;

    // valgrind's address space has no room for the 256 GB a server-GC app reserves up front (the
    // runtime then exits before Main); a 4 GB range starts the same way.
    private const string GcRegionRange = "100000000";

    // The first collection's budget follows the host's largest cache (the runtime reads /sys), and with it
    // whether a start collects: the HttpEndpoint's start counted 84.7 M instructions on a host with 32 MB
    // of L3 and 92.0 M on the hosts before, the consoles alike on both; there, a 1 MB budget gave 88.8 M and
    // 4 MB 97.8 M. Fixed at 64 MB (hex, as the runtime reads it), no app's start collects.
    private const string Gen0Size = "4000000";

    /// <summary>
    /// <c>nice -n -20</c> where this user may raise a priority (root, CAP_SYS_NICE), for timed runs; empty
    /// elsewhere. With every core busy a start that outlasts the scheduler's slice is preempted in every
    /// run (two busy loops on 2 cores: none of 60 unpreempted), and at -20 a run weighs ~87 times a nice-0
    /// task, so other processes stop adding to its time; its own work, sleeps and waits still do.
    /// </summary>
    public static IReadOnlyList<string> Raised { get; } = ProbeNice() ? ["nice", "-n", Niceness.ToString(CultureInfo.InvariantCulture)] : [];

    /// <summary>
    /// The launcher of a timed run: <see cref="Raised"/>, and natively pinned to one core (the last of
    /// this process's) with taskset where it is installed; under qemu, whose threads translate the code,
    /// not. On one core the time a start spends off the CPU is the time none of its threads ran (a sleep,
    /// a wait, the run queue); on two, threads running side by side made the HttpEndpoint's CPU 3.65 ms
    /// more than its whole start, an overlap that follows the host's speed and load.
    /// </summary>
    public static IReadOnlyList<string> Timed(bool emulated) =>
        emulated || !OnPath("taskset") ? Raised : [.. Raised, "taskset", "--cpu-list", _allowedCores.Value[^1].ToString(CultureInfo.InvariantCulture)];

    /// <summary>qemu's user-mode arm64 emulator where installed, else <see langword="null"/>.</summary>
    public static string? Qemu { get; } = new[] { "qemu-aarch64-static", "qemu-aarch64" }.FirstOrDefault(OnPath);

    /// <summary>Whether <paramref name="tool"/> is on the PATH.</summary>
    public static bool OnPath(string tool) =>
        Environment.GetEnvironmentVariable("PATH")?.Split(':').Any(d => File.Exists(Path.Combine(d, tool))) == true;

    /// <summary>
    /// The command that counts a run's user-space instructions into <paramref name="outFile"/>: cachegrind
    /// without its cache simulation, on one core (the next of this process's cores in turn), the same
    /// count for the same binary however busy the machine is (a NativeAOT hello world 1,330,980 and
    /// 1,330,996 in two runs).
    /// </summary>
    /// <remarks>
    /// On one core, because on two the count followed the scheduler: the runtime picks a server-GC heap
    /// by the core a thread runs on and spins on locks only where there is another core, and the
    /// HttpEndpoint's start and stop came to 93.5-94.2 M instructions beside two busy loops and up to
    /// 95.6 M on a slow CI host (1 % over its recorded count, a red gate on an unchanged app); pinned,
    /// 91.74-91.79 M beside the same loops. Pinned, the app sees one core on a host of any size.
    /// </remarks>
    public static IReadOnlyList<string> Cachegrind(string outFile) =>
        ["taskset", "--cpu-list", NextCore(), "valgrind", "--tool=cachegrind", "--cache-sim=no", $"--cachegrind-out-file={outFile}"];

    /// <summary>Whether instructions can be counted here: valgrind and taskset (util-linux) are installed.</summary>
    public static bool CanCount => OnPath("valgrind") && OnPath("taskset");

    /// <summary>What a counted run's environment needs under valgrind, and to count the same on any host.</summary>
    public static IReadOnlyDictionary<string, string> CachegrindEnvironment { get; } = new Dictionary<string, string> { ["DOTNET_GCRegionRange"] = GcRegionRange, ["DOTNET_GCgen0size"] = Gen0Size };

    // Runs side by side go to different cores; a count does not depend on which.
    private static int _counted;

    private static string NextCore()
    {
        var cores = _allowedCores.Value;
        return cores[(Interlocked.Increment(ref _counted) & int.MaxValue) % cores.Length].ToString(CultureInfo.InvariantCulture);
    }

    // The cores this process may run on (a container's cpuset need not start at 0).
    private static readonly Lazy<int[]> _allowedCores = new(() =>
    {
        // valgrind runs on Linux only; elsewhere nothing is counted.
        using var self = Process.GetCurrentProcess();
        var mask = OperatingSystem.IsLinux() ? (long)self.ProcessorAffinity : 1;
        var cores = Enumerable.Range(0, 64).Where(i => (mask >> i & 1) != 0).ToArray();
        return cores.Length > 0 ? cores : [0];
    });

    /// <summary>The count cachegrind wrote (its file's last lines: "events: Ir" ... "summary: 1330980").</summary>
    public static long ReadCount(string outFileText)
    {
        ArgumentNullException.ThrowIfNull(outFileText);
        var summary = outFileText.Split('\n').LastOrDefault(l => l.StartsWith("summary:", StringComparison.Ordinal))
            ?? throw new InvalidDataException($"cachegrind wrote no summary line:\n{outFileText}");
        return long.Parse(summary["summary:".Length..].Trim(), CultureInfo.InvariantCulture);
    }

    /// <summary>
    /// The floor and the app in <paramref name="pairs"/> pairs, each pair in turn floor-first and
    /// app-first, after one unmeasured run of each (the page cache); the least of each figure of each.
    /// Load only ever adds time, so on a busy host the least of many runs is the run nothing preempted
    /// (on 2 cores, with a build beside it, 60 pairs put a start within 0.3 ms of its idle figure;
    /// medians moved by 3 ms).
    /// </summary>
    public static async Task<(StartupTime Floor, StartupTime App)> LeastOfPairsAsync(Func<Task<StartupTime>> floor, Func<Task<StartupTime>> app, int pairs)
    {
        ArgumentNullException.ThrowIfNull(floor);
        ArgumentNullException.ThrowIfNull(app);
        await floor().ConfigureAwait(false);
        await app().ConfigureAwait(false);
        StartupTime? floorLeast = null, appLeast = null;
        for (var i = 0; i < pairs; i++)
        {
            var floorFirst = i % 2 == 0;
            if (floorFirst) floorLeast = Least(floorLeast, await floor().ConfigureAwait(false));
            appLeast = Least(appLeast, await app().ConfigureAwait(false));
            if (!floorFirst) floorLeast = Least(floorLeast, await floor().ConfigureAwait(false));
        }
        return (floorLeast ?? throw new ArgumentOutOfRangeException(nameof(pairs), "at least one pair"), appLeast!.Value);
    }

    private static StartupTime Least(StartupTime? least, StartupTime run) => least is { } l ? StartupTime.Least(l, run) : run;

    private static bool ProbeNice()
    {
        try
        {
            using var nice = Process.Start(new ProcessStartInfo("nice", ["-n", Niceness.ToString(CultureInfo.InvariantCulture), "nice"]) { RedirectStandardOutput = true, RedirectStandardError = true, UseShellExecute = false })!;
            var output = nice.StandardOutput.ReadToEnd();
            nice.WaitForExit();
            return nice.ExitCode == 0 && output.Trim() == Niceness.ToString(CultureInfo.InvariantCulture);
        }
        catch (System.ComponentModel.Win32Exception)
        {
            return false;
        }
    }
}
