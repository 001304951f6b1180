using System.Globalization;

namespace Prewire.Harness;

/// <summary>
/// `./build.sh baseline [pairs]`: publishes every app as the demo does (<see cref="AppBuilds"/>) and the
/// NativeAOT floor, measures each the way the gate does and rewrites build/startup-baseline.json.
/// Run it on an idle machine, on purpose, and commit the file with the change that moved the figures.
/// </summary>
public static class RecordBaseline
{
    public static async Task<int> RunAsync(int pairs, TextWriter output)
    {
        ArgumentNullException.ThrowIfNull(output);
        var broker = BrokerNode.RequiredUri("baseline");
        var builds = await AppBuilds.PublishAllAsync("baseline", output).ConfigureAwait(false);
        if (builds is null) return 1;
        var floors = new Dictionary<string, PublishResult>();
        foreach (var rid in Repo.Rids)
        {
            floors[rid] = await Publishing.PublishAsync(App.StartupFloor, rid, PublishMode.Aot).ConfigureAwait(false);
            if (!floors[rid].Succeeded)
            {
                output.WriteLine($"baseline: the NativeAOT floor ({rid}) FAILED:\n{floors[rid].Errors}");
                return 1;
            }
        }

        var entries = new List<BaselineEntry>();
        var rows = new List<string[]>();
        foreach (var build in builds)
        {
            output.WriteLine($"baseline: timing {build.App} against the floor...");
            foreach (var rid in Repo.Rids)
            {
                var entry = await StartupRuns.MeasureAsync(build.App, rid, build.AotFor(rid), floors[rid], broker, pairs).ConfigureAwait(false);
                entries.Add(entry with { Figures = [.. entry.Figures.Select(f => f with { FloorMs = Math.Round(f.FloorMs, 2), AppMs = Math.Round(f.AppMs, 2) })] });
                rows.AddRange(entry.Figures.Select(f => new[]
                {
                    build.App.Name, rid, f.Name, Table.Ms(f.FloorMs), Table.Ms(f.AppMs), f.ExcessMs.ToString("0.00 'ms'", CultureInfo.InvariantCulture),
                    StartupBaseline.AllowanceMs(f, rid).ToString("'+'0.00 'ms'", CultureInfo.InvariantCulture),
                }));
            }
        }

        new StartupBaseline
        {
            RecordedWith = $"./build.sh baseline {pairs} on {Environment.ProcessorCount} cores, .NET {Environment.Version}; the least spawn-to-ready and spawn-to-exit times of the app and of build/StartupFloor over {pairs} alternating pairs ({StartupRuns.PairsFor("linux-arm64", pairs)} under qemu), {(TimedPriority.Available ? $"spawned at niceness {TimedPriority.Niceness}" : "spawned at the default priority")}",
            Entries = entries,
        }.Write();
        Table.Write(output, ["app", "rid", "figure", "floor", "app", "excess", "allowed"], rows);
        output.WriteLine($"baseline: wrote {Path.GetRelativePath(Repo.Root, StartupBaseline.FilePath)}");
        return 0;
    }
}
