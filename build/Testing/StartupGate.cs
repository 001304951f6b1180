namespace Prewire.Testing;

/// <summary>How the smoke tests hold an app × RID to build/startup-baseline.json (<see cref="StartupBaseline.Check"/>).</summary>
public static class StartupGate
{
    /// <summary>
    /// Measurements at most before a failure stands (each <see cref="StartupRuns.GatePairs"/> more
    /// pairs): the least of more runs can only come down, so a regression fails every one of them, while
    /// runs a saturated host preempted give way to one it did not.
    /// </summary>
    public static int MaxMeasurements(string rid) => Qemu.Emulates(rid) ? 3 : 10;

    /// <summary>
    /// Measures and checks; while something fails, measures more pairs on top and checks again, up to
    /// <see cref="MaxMeasurements"/>. Returns what still failed (empty: passed) and every figure seen.
    /// </summary>
    public static async Task<(IReadOnlyList<string> Failures, BaselineEntry Measured)> CheckAsync(StartupBaseline baseline, App app, string rid, PublishResult aot, PublishResult floor, string brokerUri, Action<BaselineEntry>? onMeasured = null)
    {
        ArgumentNullException.ThrowIfNull(baseline);
        BaselineEntry? measured = null;
        IReadOnlyList<string> failures = [];
        for (var i = 0; i < MaxMeasurements(rid) && (i == 0 || failures.Count > 0); i++)
        {
            measured = await StartupRuns.MeasureAsync(app, rid, aot, floor, brokerUri, StartupRuns.GatePairs, measured).ConfigureAwait(false);
            onMeasured?.Invoke(measured);
            failures = baseline.Check(measured);
        }
        return (failures, measured!);
    }
}
