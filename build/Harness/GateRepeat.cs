using System.Globalization;

namespace Prewire.Harness;

/// <summary>
/// `./build.sh gate-repeat [rounds]`: the start-up gate as the smoke tests run it
/// (<see cref="StartupGate.CheckAsync"/>), on this host's NativeAOT apps, that many rounds; prints
/// every failure and a count. Nothing changed, so every failure is a false one: run it under the load
/// the gate must stand (a build beside it, busy loops).
/// </summary>
public static class GateRepeat
{
    public static async Task<int> RunAsync(int rounds, string brokerUri, TextWriter output)
    {
        ArgumentNullException.ThrowIfNull(output);
        var rid = Repo.HostRid;
        var builds = new Dictionary<App, PublishResult>();
        foreach (var app in App.All.Append(App.StartupFloor))
        {
            builds[app] = await Publishing.PublishAsync(app, rid, PublishMode.Aot).ConfigureAwait(false);
            if (!builds[app].Succeeded)
            {
                output.WriteLine($"gate-repeat: {app} did not publish:\n{builds[app].Errors}");
                return 1;
            }
        }
        var baseline = StartupBaseline.Read();
        var (checks, measurements, failed) = (0, 0, 0);
        var nearest = App.All.ToDictionary(a => a, _ => new Nearest(0, "-", double.NegativeInfinity, 0, "-"));
        for (var round = 0; round < rounds; round++)
        {
            foreach (var app in App.All)
            {
                var (failures, measured) = await StartupGate.CheckAsync(baseline, app, rid, builds[app], builds[App.StartupFloor], brokerUri, _ => measurements++).ConfigureAwait(false);
                nearest[app] = nearest[app].With(baseline.Find(app.Name, rid)!, measured);
                checks++;
                if (failures.Count == 0) continue;
                failed++;
                output.WriteLine($"gate-repeat: round {round + 1}, {string.Join(" | ", failures)}");
            }
        }
        foreach (var (app, n) in nearest)
        {
            output.WriteLine(string.Create(CultureInfo.InvariantCulture,
                $"gate-repeat: {app}: instructions over the floor moved by at most {n.InstructionChange:+0.00%;-0.00%} ({n.InstructionFigure}); nearest timed figure {n.OverMs:+0.00;-0.00} ms over recorded, allowed +{n.AllowedMs:0.00} ({n.TimedFigure})"));
        }
        output.WriteLine($"gate-repeat: {checks} gate checks ({rounds} rounds x {App.All.Count} apps, {rid}), {measurements} measurements of {StartupRuns.GatePairs} pairs, {failed} failed");
        return failed == 0 ? 0 : 1;
    }

    // What came nearest its tolerance so far: the largest instruction change either way, and the
    // timed figure with the least room left between its excess over recorded and its allowance.
    private sealed record Nearest(double InstructionChange, string InstructionFigure, double OverMs, double AllowedMs, string TimedFigure)
    {
        public Nearest With(BaselineEntry recorded, BaselineEntry measured)
        {
            var next = this;
            foreach (var was in recorded.Instructions ?? [])
            {
                if (measured.Instructions?.FirstOrDefault(f => f.Name == was.Name) is not { } now) continue;
                var change = (now.Excess - was.Excess) / (double)was.Excess;
                if (Math.Abs(change) > Math.Abs(next.InstructionChange)) next = next with { InstructionChange = change, InstructionFigure = was.Name };
            }
            foreach (var was in recorded.Figures)
            {
                if (measured.Figures.FirstOrDefault(f => f.Name == was.Name) is not { } now) continue;
                var over = StartupBaseline.OverRecordedMs(was, now, measured.Rid) ?? double.NaN;
                var allowed = StartupBaseline.AllowanceMs(was, measured.Rid);
                if (over - allowed > next.OverMs - next.AllowedMs) next = next with { OverMs = over, AllowedMs = allowed, TimedFigure = was.Name };
            }
            return next;
        }
    }
}
