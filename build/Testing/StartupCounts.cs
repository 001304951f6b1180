namespace Prewire.Testing;

/// <summary>
/// The start-up figures that load does not move, measured the same way by the baseline verb and the
/// gate: instructions per figure against the floor's (<see cref="Cachegrind"/>), and the faults and
/// peak RSS of a start (<see cref="ResourceUse"/>). Natively only; under qemu the timed check stands alone.
/// </summary>
public static class StartupCounts
{
    /// <summary>Counted runs per figure, the least kept: 3 (the Publisher's start with the broker varied by 0.9 % run to run, its least by 0.1 %).</summary>
    public const int InstructionRuns = 3;

    /// <summary>Runs of the resource figure, after one that warms the page cache.</summary>
    public const int ResourceRuns = 5;

    /// <summary>
    /// Each figure that applies to <paramref name="app"/> (or only <paramref name="only"/>), counted
    /// against the floor; empty where nothing can count.
    /// </summary>
    public static async Task<IReadOnlyList<InstructionFigure>> InstructionsAsync(App app, string rid, PublishResult aot, PublishResult floor, string brokerUri, string? only = null)
    {
        ArgumentNullException.ThrowIfNull(app);
        ArgumentNullException.ThrowIfNull(aot);
        ArgumentNullException.ThrowIfNull(floor);
        if (!Cachegrind.Counts(rid)) return [];
        // Counts do not move with load, so the runs go side by side, one per core.
        using var cores = new SemaphoreSlim(Environment.ProcessorCount);
        // The floor prints its ready line and exits whatever it is given: one count serves every figure.
        var floorCount = LeastAsync(cores, floor.ExecutablePath, rid, () => [], stopAtReady: false);
        var apps = Runs(app, brokerUri).Where(r => only is null || r.Name == only)
            .Select(r => (r.Name, Count: LeastAsync(cores, aot.ExecutablePath, rid, r.Args, r.StopAtReady))).ToList();
        var figures = new List<InstructionFigure>();
        foreach (var (name, count) in apps) figures.Add(new InstructionFigure(name, await floorCount.ConfigureAwait(false), await count.ConfigureAwait(false)));
        return figures;
    }

    /// <summary>The app's start to its ready line without a broker, as the kernel saw it; null where it is not measured.</summary>
    public static async Task<ResourceFigure?> ResourcesAsync(App app, string rid, PublishResult aot)
    {
        ArgumentNullException.ThrowIfNull(app);
        ArgumentNullException.ThrowIfNull(aot);
        if (!ResourceUse.Measures(rid)) return null;
        var runs = new List<ResourceFigure>();
        for (var i = 0; i <= ResourceRuns; i++) runs.Add(await ResourceUse.MeasureAsync(aot.ExecutablePath, rid, AppRuns.Arguments(app, null, out _), app.IsWeb).ConfigureAwait(false));
        return ResourceFigure.Least(runs[1..]);
    }

    // Each counted figure's command line. A console without a broker exits at its ready line; with
    // one, --count 0 makes it connect, declare, print the line and exit; the web app is stopped there.
    // The arguments are made per run: runs of one figure go side by side, and each web app needs a port
    // of its own (one shared port failed CI: the second Kestrel found it in use).
    private static IEnumerable<(string Name, Func<IReadOnlyList<string>> Args, bool StopAtReady)> Runs(App app, string brokerUri)
    {
        yield return (StartupFigure.Names.Ready, () => AppRuns.Arguments(app, null, out _), app.IsWeb);
        if (!app.IsWeb) yield return (StartupFigure.Names.ReadyWithBroker, () => ["--uri", brokerUri, "--count", "0"], false);
        yield return (StartupFigure.Names.Help, () => ["--help"], false);
    }

    private static async Task<long> LeastAsync(SemaphoreSlim cores, string executable, string rid, Func<IReadOnlyList<string>> args, bool stopAtReady)
    {
        var counts = await Task.WhenAll(Enumerable.Range(0, InstructionRuns).Select(async _ =>
        {
            await cores.WaitAsync().ConfigureAwait(false);
            try
            {
                return await Cachegrind.CountAsync(executable, rid, args(), stopAtReady).ConfigureAwait(false);
            }
            finally
            {
                cores.Release();
            }
        })).ConfigureAwait(false);
        return counts.Min();
    }
}
