namespace Prewire.Testing;

/// <summary>Spawn-to-ready medians for several builds of one app, measured the same way by the demo, the baseline verb and the gate.</summary>
public static class StartupRuns
{
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
    /// One app × RID the way the baseline records it and the gate checks it: the AOT binary without a
    /// broker (alternating with <paramref name="jit"/>, the same app's JIT build, when given), with
    /// <paramref name="brokerUri"/> for the broker apps, and its size. Fewer runs under qemu.
    /// </summary>
    public static async Task<BaselineEntry> MeasureAsync(App app, string rid, PublishResult aot, PublishResult? jit, string brokerUri, int runs)
    {
        ArgumentNullException.ThrowIfNull(app);
        ArgumentNullException.ThrowIfNull(aot);
        var runsHere = RunsFor(rid, runs);
        var medians = jit is null
            ? await MediansAsync(app, rid, brokerUri: null, runsHere, aot.ExecutablePath).ConfigureAwait(false)
            : await MediansAsync(app, rid, brokerUri: null, runsHere, aot.ExecutablePath, jit.ExecutablePath).ConfigureAwait(false);
        double? withBroker = app.IsWeb ? null : (await MediansAsync(app, rid, brokerUri, runsHere, aot.ExecutablePath).ConfigureAwait(false))[0];
        return new BaselineEntry(app.Name, rid, medians[0], withBroker, aot.Size, jit is null ? null : medians[1]);
    }

    /// <summary>Runs per figure for <paramref name="rid"/>: fewer under qemu, where each is slow.</summary>
    public static int RunsFor(string rid, int runs) => Qemu.Emulates(rid) ? Math.Max(3, runs / 2) : runs;

    /// <summary>The median (the mean of the middle two for an even count).</summary>
    public static double Median(IEnumerable<double> values)
    {
        var sorted = values.Order().ToList();
        return sorted.Count % 2 == 1 ? sorted[sorted.Count / 2] : (sorted[(sorted.Count / 2) - 1] + sorted[sorted.Count / 2]) / 2;
    }
}
