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
        for (var round = 0; round < rounds; round++)
        {
            foreach (var app in App.All)
            {
                var (failures, _) = await StartupGate.CheckAsync(baseline, app, rid, builds[app], builds[App.StartupFloor], brokerUri, _ => measurements++).ConfigureAwait(false);
                checks++;
                if (failures.Count == 0) continue;
                failed++;
                output.WriteLine($"gate-repeat: round {round + 1}, {string.Join(" | ", failures)}");
            }
        }
        output.WriteLine($"gate-repeat: {checks} gate checks ({rounds} rounds x {App.All.Count} apps, {rid}), {measurements} measurements of {StartupRuns.GatePairs} pairs, {failed} failed");
        return failed == 0 ? 0 : 1;
    }
}
