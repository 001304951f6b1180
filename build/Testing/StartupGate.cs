namespace Prewire.Testing;

/// <summary>How the smoke tests hold an app × RID to build/startup-baseline.json (<see cref="StartupBaseline.Check"/>).</summary>
public static class StartupGate
{
    /// <summary>
    /// Timed measurements at most before a failure stands (each <see cref="StartupRuns.GatePairs"/> more
    /// pairs): the least of more runs can only come down, so a regression fails every one of them, while
    /// runs a saturated host preempted give way to one it did not.
    /// </summary>
    public static int MaxMeasurements(string rid) => Qemu.Emulates(rid) ? 3 : 10;

    /// <summary>
    /// One app × RID the way the baseline records it and the gate checks it: the counts load cannot
    /// move (<see cref="StartupCounts"/>), then the timed figures (<see cref="StartupRuns.MeasureAsync"/>).
    /// </summary>
    public static async Task<BaselineEntry> MeasureAsync(App app, string rid, PublishResult aot, PublishResult floor, string brokerUri, int pairs, string? only = null)
    {
        var (instructions, resources) = await CountsAsync(app, rid, aot, floor, brokerUri, only).ConfigureAwait(false);
        var timed = await StartupRuns.MeasureAsync(app, rid, aot, floor, brokerUri, pairs, only: OnlySet(only)).ConfigureAwait(false);
        return timed with { Instructions = instructions, Resources = resources };
    }

    /// <summary>
    /// <paramref name="recorded"/> with what load cannot move measured again (the counts and the
    /// binary's size) and its timed figures kept: `./build.sh baseline counts`.
    /// </summary>
    public static async Task<BaselineEntry> RecountAsync(BaselineEntry recorded, App app, string rid, PublishResult aot, PublishResult floor, string brokerUri)
    {
        ArgumentNullException.ThrowIfNull(recorded);
        ArgumentNullException.ThrowIfNull(aot);
        var (instructions, resources) = await CountsAsync(app, rid, aot, floor, brokerUri).ConfigureAwait(false);
        return recorded with { BinaryBytes = aot.Size, Instructions = instructions, Resources = resources };
    }

    private static async Task<(IReadOnlyList<InstructionFigure>? Instructions, ResourceFigure? Resources)> CountsAsync(App app, string rid, PublishResult aot, PublishResult floor, string brokerUri, string? only = null)
    {
        var instructions = await StartupCounts.InstructionsAsync(app, rid, aot, floor, brokerUri, only).ConfigureAwait(false);
        var resources = await StartupCounts.ResourcesAsync(app, rid, aot).ConfigureAwait(false);
        return (instructions.Count > 0 ? instructions : null, resources);
    }

    /// <summary>
    /// Measures and checks; the counts once (they do not move with load), the timed figures that
    /// fail again while they do, with more pairs on top each time, up to <see cref="MaxMeasurements"/>. Returns what
    /// still failed (empty: passed) and every figure seen.
    /// </summary>
    /// <remarks>
    /// Given <paramref name="only"/>, one figure is measured and the others are reported as not measured:
    /// for a test of the gate itself, where a regression before Main fails every figure alike and each
    /// figure that fails is measured <see cref="MaxMeasurements"/> times (under qemu, 10 pairs of the
    /// Consumer are 10-40 s).
    /// </remarks>
    public static async Task<(IReadOnlyList<string> Failures, BaselineEntry Measured)> CheckAsync(StartupBaseline baseline, App app, string rid, PublishResult aot, PublishResult floor, string brokerUri, Action<BaselineEntry>? onMeasured = null, string? only = null)
    {
        ArgumentNullException.ThrowIfNull(baseline);
        var measured = await MeasureAsync(app, rid, aot, floor, brokerUri, StartupRuns.GatePairs, only).ConfigureAwait(false);
        onMeasured?.Invoke(measured);
        var counted = baseline.CheckCounts(measured);
        for (var i = 1; i < MaxMeasurements(rid) && baseline.FailingTimes(measured).Where(f => only is null || f == only).ToHashSet() is { Count: > 0 } failing; i++)
        {
            measured = await StartupRuns.MeasureAsync(app, rid, aot, floor, brokerUri, StartupRuns.GatePairs, measured, only: failing).ConfigureAwait(false);
            onMeasured?.Invoke(measured);
        }
        return ([.. counted, .. baseline.CheckTimes(measured)], measured);
    }

    private static HashSet<string>? OnlySet(string? only) => only is null ? null : [only];
}
