using System.Globalization;

namespace Prewire.Harness;

/// <summary>
/// `./build.sh gate-sensitivity [rounds] [rid]`: which start-up regressions the gate catches.
/// Publishes the Consumer with a delay before Main once per RID (<see cref="StartupDelayFixture"/>), sets
/// it to known regressions in turn (none for the control), measures its spawn-to-ready against the floor
/// a number of rounds each, as the gate does, and counts how often the committed baseline's check fails
/// it: natively, fixed work against the instruction count and sleeps against the time off the CPU; under
/// qemu, busy milliseconds against the wall clock. Run it idle and under the load you want to be safe
/// from (a build beside it, busy loops).
/// </summary>
public static class GateSensitivity
{
    private static readonly (string Rid, StartupDelayKind Kind, double[] Amounts)[] _rows =
    [
        ("linux-x64", StartupDelayKind.Work, [0, 50, 100, 200]),
        ("linux-x64", StartupDelayKind.Sleep, [1, 2, 3]),
        ("linux-arm64", StartupDelayKind.Busy, [0, 40, 60, 80, 110]),
    ];

    public static async Task<int> RunAsync(int rounds, string? onlyRid, TextWriter output)
    {
        ArgumentNullException.ThrowIfNull(output);
        var baseline = StartupBaseline.Read();
        var table = new List<string[]>();
        foreach (var (rid, kind, amounts) in _rows.Where(r => onlyRid is null || r.Rid == onlyRid))
        {
            var recorded = baseline.Find(App.Consumer.Name, rid);
            var floor = await Publishing.PublishAsync(App.StartupFloor, rid, PublishMode.Aot).ConfigureAwait(false);
            if (recorded is null || !floor.Succeeded)
            {
                output.WriteLine($"gate-sensitivity: no recorded Consumer {rid}, or the floor did not publish:\n{floor.Errors}");
                return 1;
            }
            output.WriteLine($"gate-sensitivity: Consumer {rid} with a delay before Main, publishing...");
            var slow = await StartupDelayFixture.PublishAsync(App.Consumer, rid).ConfigureAwait(false);
            if (!slow.Succeeded)
            {
                output.WriteLine(slow.Errors);
                return 1;
            }
            foreach (var amount in amounts)
            {
                var what = $"+{amount.ToString(CultureInfo.InvariantCulture)} {StartupDelayFixture.Unit(kind)} {kind.ToString().ToLowerInvariant()}";
                output.WriteLine($"gate-sensitivity: Consumer {rid} {what}...");
                StartupDelayFixture.Set(slow, kind, amount);
                var row = kind == StartupDelayKind.Work
                    ? await InstructionsAsync(recorded, rid, floor, slow, rounds).ConfigureAwait(false)
                    : await WallClockAsync(recorded, rid, floor, slow, rounds).ConfigureAwait(false);
                if (row is null)
                {
                    output.WriteLine($"gate-sensitivity: Consumer {rid} has no recorded {(kind == StartupDelayKind.Work ? "instruction count" : "time")} to ready; re-record with ./build.sh baseline");
                    return 1;
                }
                table.Add([rid, what, .. row]);
            }
        }
        Table.Write(output, ["rid", "Consumer", "instrument", "gate failed", "excess over recorded (least / median / most)", "allowed"], table);
        return 0;
    }

    // Instructions to the ready line against the floor's, counted each round as the gate counts them.
    private static async Task<string[]?> InstructionsAsync(BaselineEntry recorded, string rid, PublishResult floor, PublishResult slow, int rounds)
    {
        if (recorded.Instructions?.FirstOrDefault(f => f.Name == StartupFigure.Names.Ready) is not { } was) return null;
        var over = new List<double>();
        for (var round = 0; round < rounds; round++)
        {
            var now = (await StartupCounts.InstructionsAsync(App.Consumer, rid, slow, floor, "", StartupFigure.Names.Ready).ConfigureAwait(false))[0];
            over.Add((now.Excess - was.Excess) / (double)was.Excess);
        }
        var tolerance = StartupBaseline.InstructionToleranceFor(was.Name);
        return ["instructions", $"{over.Count(o => Math.Abs(o) > tolerance)}/{rounds}",
            string.Create(CultureInfo.InvariantCulture, $"{over.Min():+0.00%;-0.00%} / {StartupRuns.Median(over):+0.00%;-0.00%} / {over.Max():+0.00%;-0.00%}"),
            string.Create(CultureInfo.InvariantCulture, $"±{tolerance:0%}")];
    }

    // Spawn to ready against the floor in the gate's pairs, each round: natively the time off the CPU, under qemu all of it.
    private static async Task<string[]?> WallClockAsync(BaselineEntry recorded, string rid, PublishResult floor, PublishResult slow, int rounds)
    {
        if (recorded.Figures.FirstOrDefault(f => f.Name == StartupFigure.Names.Ready) is not { } was || StartupBaseline.GatedExcessMs(was, was, rid) is null) return null;
        var allowed = StartupBaseline.AllowanceMs(was, rid);
        var over = new List<double>();
        for (var round = 0; round < rounds; round++)
        {
            var figure = await StartupRuns.ReadyFigureAsync(App.Consumer, rid, slow, floor, StartupRuns.GatePairs).ConfigureAwait(false);
            over.Add(StartupBaseline.OverRecordedMs(was, figure, rid) ?? double.NaN);
        }
        return [Qemu.Emulates(rid) ? "wall clock" : "wall clock, off the CPU", $"{over.Count(o => !(o <= allowed))}/{rounds}",
            string.Create(CultureInfo.InvariantCulture, $"{over.Min():0.00} / {StartupRuns.Median(over):0.00} / {over.Max():0.00} ms"),
            string.Create(CultureInfo.InvariantCulture, $"+{allowed:0.00} ms")];
    }
}
