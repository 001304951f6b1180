using Prewire.Build;

namespace Prewire.Testing;

/// <summary>Spawn-to-ready and spawn-to-exit times of the app binaries, measured the same way by the demo, the baseline verb and the gate.</summary>
public static class StartupRuns
{
    /// <summary>Pairs per figure the gate measures and the baseline is recorded with (a sixth under qemu).</summary>
    public const int GatePairs = 60;

    /// <summary>
    /// Runs each of <paramref name="executables"/> <paramref name="runs"/> times to its ready line and
    /// a clean exit, and returns each one's median in ms. One unmeasured run each warms the page cache;
    /// then the builds alternate run by run, so a load that comes and goes hits them alike.
    /// </summary>
    public static async Task<double[]> MediansAsync(App app, string rid, string? brokerUri, int runs, params string[] executables)
    {
        ArgumentNullException.ThrowIfNull(executables);
        foreach (var executable in executables) await AppRuns.RunOnceAsync(app, executable, rid, brokerUri).ConfigureAwait(false);
        var times = executables.Select(_ => new List<double>(runs)).ToArray();
        for (var i = 0; i < runs; i++)
        {
            for (var b = 0; b < executables.Length; b++)
                times[b].Add(await AppRuns.RunOnceAsync(app, executables[b], rid, brokerUri).ConfigureAwait(false));
        }
        return times.Select(Median).ToArray();
    }

    /// <summary>
    /// One app × RID the way the baseline records it and the gate checks it: every figure of
    /// <see cref="StartupFigure.Names"/> that applies, each against <paramref name="floor"/> (the
    /// NativeAOT hello world, build/StartupFloor) in <paramref name="pairs"/> alternating pairs, and the
    /// binary's size. Fewer pairs under qemu, where each run is slow.
    /// </summary>
    /// <remarks>
    /// Given <paramref name="earlier"/>, a measurement of the same binaries, each figure goes on from
    /// it: the least times of both, as if the pairs had been one run; its counts are kept. Given
    /// <paramref name="only"/>, the other figures are not run again but kept from
    /// <paramref name="earlier"/> (under qemu a figure's 10 pairs take 10-40 s).
    /// </remarks>
    public static async Task<BaselineEntry> MeasureAsync(App app, string rid, PublishResult aot, PublishResult floor, string brokerUri, int pairs, BaselineEntry? earlier = null, IReadOnlySet<string>? only = null)
    {
        ArgumentNullException.ThrowIfNull(app);
        ArgumentNullException.ThrowIfNull(aot);
        ArgumentNullException.ThrowIfNull(floor);
        var figures = new List<StartupFigure>();
        foreach (var (name, floorRun, appRun) in Runs(app, rid, aot.ExecutablePath, floor.ExecutablePath, brokerUri))
        {
            var before = earlier?.Figures.FirstOrDefault(e => e.Name == name);
            if (only is not null && !only.Contains(name))
            {
                if (before is not null) figures.Add(before);
                continue;
            }
            var now = await FigureAsync(name, floorRun, appRun, PairsFor(rid, pairs)).ConfigureAwait(false);
            figures.Add(before is null ? now : StartupFigure.Least(now, before));
        }
        return new BaselineEntry(app.Name, rid, aot.Size, figures, earlier?.Instructions, earlier?.Resources);
    }

    // Each figure of StartupFigure.Names that applies to the app: its name, one run of the floor, one of the app.
    private static IEnumerable<(string Name, Func<Task<StartupTime>> Floor, Func<Task<StartupTime>> App)> Runs(App app, string rid, string exe, string floorExe, string brokerUri)
    {
        yield return (StartupFigure.Names.Ready, ToReady(App.StartupFloor, floorExe, rid), ToReady(app, exe, rid));
        if (!app.IsWeb)
        {
            yield return (StartupFigure.Names.ReadyWithBroker, ToReady(App.StartupFloor, floorExe, rid), ToReady(app, exe, rid, brokerUri));
            yield return (StartupFigure.Names.OneShot, ToExit(App.StartupFloor, floorExe, rid, []), ToExit(app, exe, rid, []));
        }
        yield return (StartupFigure.Names.Help, ToExit(App.StartupFloor, floorExe, rid, ["--help"]), ToExit(app, exe, rid, ["--help"]));
    }

    private static Func<Task<StartupTime>> ToReady(App app, string exe, string rid, string? brokerUri = null) =>
        () => AppRuns.TimeToReadyAsync(app, exe, rid, brokerUri, timed: true);

    private static Func<Task<StartupTime>> ToExit(App app, string exe, string rid, string[] args) =>
        () => AppRuns.RunToExitAsync(app, exe, rid, args, timed: true);

    /// <summary>The ready figure alone (spawn to the ready line without a broker), measured as <see cref="MeasureAsync"/> measures it.</summary>
    public static Task<StartupFigure> ReadyFigureAsync(App app, string rid, PublishResult aot, PublishResult floor, int pairs)
    {
        ArgumentNullException.ThrowIfNull(aot);
        ArgumentNullException.ThrowIfNull(floor);
        return FigureAsync(StartupFigure.Names.Ready, ToReady(App.StartupFloor, floor.ExecutablePath, rid), ToReady(app, aot.ExecutablePath, rid), PairsFor(rid, pairs));
    }

    // The floor and the app in alternating pairs, the least of each figure of each, as the Prewire.Build package's gate times them.
    private static async Task<StartupFigure> FigureAsync(string name, Func<Task<StartupTime>> floor, Func<Task<StartupTime>> app, int pairs)
    {
        var (floorTime, appTime) = await StartupInstruments.LeastOfPairsAsync(floor, app, pairs).ConfigureAwait(false);
        return new StartupFigure(name, floorTime.Ms, appTime.Ms, floorTime.OffCpuMs, appTime.OffCpuMs);
    }

    /// <summary>Pairs per figure for <paramref name="rid"/>: a sixth under qemu, where a run takes 0.3-2 s.</summary>
    public static int PairsFor(string rid, int pairs) => Qemu.Emulates(rid) ? Math.Max(5, pairs / 6) : pairs;

    /// <summary>Runs per figure for <paramref name="rid"/>: fewer under qemu, where each is slow.</summary>
    public static int RunsFor(string rid, int runs) => Qemu.Emulates(rid) ? Math.Max(3, runs / 2) : runs;

    /// <summary>The median (the mean of the middle two for an even count).</summary>
    public static double Median(IEnumerable<double> values)
    {
        var sorted = values.Order().ToList();
        return sorted.Count % 2 == 1 ? sorted[sorted.Count / 2] : (sorted[(sorted.Count / 2) - 1] + sorted[sorted.Count / 2]) / 2;
    }
}
