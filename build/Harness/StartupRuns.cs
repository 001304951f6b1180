namespace Prewire.Harness;

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

    private static double Median(List<double> values)
    {
        values.Sort();
        return values.Count % 2 == 1 ? values[values.Count / 2] : (values[(values.Count / 2) - 1] + values[values.Count / 2]) / 2;
    }
}
