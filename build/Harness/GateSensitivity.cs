using System.Globalization;

namespace Prewire.Harness;

/// <summary>
/// `./build.sh gate-sensitivity [rounds]`: which start-up regressions the gate catches. Publishes the
/// Consumer with known delays before Main (<see cref="StartupDelayFixture"/>, none for the control),
/// times its spawn-to-ready against the floor a number of rounds each, as the gate does,
/// and counts how often the committed baseline's check fails it. Run it idle and under the load you
/// want to be safe from (a build beside it, busy loops).
/// </summary>
public static class GateSensitivity
{
    private static readonly Dictionary<string, double[]> _delaysMs = new()
    {
        ["linux-x64"] = [0, 0.5, 1, 1.5, 2, 3],
        ["linux-arm64"] = [0, 20, 40, 60, 80],
    };

    public static async Task<int> RunAsync(int rounds, TextWriter output)
    {
        ArgumentNullException.ThrowIfNull(output);
        var baseline = StartupBaseline.Read();
        var rows = new List<string[]>();
        foreach (var (rid, delays) in _delaysMs)
        {
            var recorded = baseline.Find(App.Consumer.Name, rid)?.Figures.FirstOrDefault(f => f.Name == StartupFigure.Names.Ready);
            var floor = await Publishing.PublishAsync(App.StartupFloor, rid, PublishMode.Aot).ConfigureAwait(false);
            if (recorded is null || !floor.Succeeded)
            {
                output.WriteLine($"gate-sensitivity: no recorded Consumer {rid} figure, or the floor did not publish:\n{floor.Errors}");
                return 1;
            }
            var allowed = StartupBaseline.AllowanceMs(recorded, rid);
            foreach (var delay in delays)
            {
                output.WriteLine($"gate-sensitivity: Consumer {rid} +{delay} ms, publishing...");
                var slow = await StartupDelayFixture.PublishAsync(App.Consumer, rid, delay).ConfigureAwait(false);
                if (!slow.Succeeded)
                {
                    output.WriteLine(slow.Errors);
                    return 1;
                }
                var over = new List<double>();
                for (var round = 0; round < rounds; round++)
                {
                    var figure = await StartupRuns.FigureAsync(StartupFigure.Names.Ready,
                        () => AppRuns.RunOnceAsync(App.StartupFloor, floor.ExecutablePath, rid, null, timed: true),
                        () => AppRuns.RunOnceAsync(App.Consumer, slow.ExecutablePath, rid, null, timed: true),
                        StartupRuns.PairsFor(rid, StartupRuns.GatePairs)).ConfigureAwait(false);
                    over.Add(StartupBaseline.ScaledExcessMs(recorded, figure) - recorded.ExcessMs);
                }
                var caught = over.Count(o => o > allowed);
                rows.Add([rid, $"+{delay.ToString(CultureInfo.InvariantCulture)} ms", $"{caught}/{rounds}",
                    string.Create(CultureInfo.InvariantCulture, $"{over.Min():0.00} / {StartupRuns.Median(over):0.00} / {over.Max():0.00} ms"), $"+{allowed:0.00} ms"]);
            }
        }
        Table.Write(output, ["rid", "Consumer delayed", "gate failed", "excess over recorded (least / median / most)", "allowed"], rows);
        return 0;
    }
}
