using System.Globalization;

namespace Prewire.Harness;

/// <summary>
/// `./build.sh baseline [runs]`: publishes every app as the demo does (<see cref="AppBuilds"/>), measures
/// each the way the gate does and rewrites build/startup-baseline.json.
/// Run it on an idle machine, on purpose, and commit the file with the change that moved the figures.
/// </summary>
public static class RecordBaseline
{
    public static async Task<int> RunAsync(int runs, TextWriter output)
    {
        ArgumentNullException.ThrowIfNull(output);
        var host = Repo.HostRid;
        var broker = BrokerNode.RequiredUri("baseline");
        var builds = await AppBuilds.PublishAllAsync("baseline", output).ConfigureAwait(false);
        if (builds is null) return 1;

        var entries = new List<BaselineEntry>();
        var rows = new List<string[]>();
        foreach (var (app, aot, jit, arm64) in builds)
        {
            output.WriteLine($"baseline: starting {app} (spawn to ready line)...");
            foreach (var (rid, binary) in new[] { (host, aot), (AppBuilds.Arm64Rid, arm64) })
            {
                var native = rid == host;
                var entry = await StartupRuns.MeasureAsync(app, rid, binary, native ? jit : null, broker, runs).ConfigureAwait(false);
                entries.Add(entry with { StartupMs = Math.Round(entry.StartupMs, 1), StartupWithBrokerMs = Round(entry.StartupWithBrokerMs), JitStartupMs = Round(entry.JitStartupMs) });
                var emulated = native ? "" : " (qemu)";
                rows.Add([app.Name, rid, binary.Size.ToString("N0", CultureInfo.InvariantCulture), Table.Ms(entry.StartupMs) + emulated,
                    entry.StartupWithBrokerMs is { } ms ? Table.Ms(ms) + emulated : "-", entry.JitStartupMs is { } j ? (j / entry.StartupMs).ToString("0.0x", CultureInfo.InvariantCulture) : "-"]);
            }
        }

        new StartupBaseline
        {
            RecordedWith = $"./build.sh baseline {runs} on {Environment.ProcessorCount} cores, .NET {Environment.Version}; median spawn-to-ready, without a broker and with the loopback one",
            Entries = entries,
        }.Write();
        Table.Write(output, ["app", "rid", "binary bytes", "start-up", "with broker", "JIT/AOT"], rows);
        output.WriteLine($"baseline: wrote {Path.GetRelativePath(Repo.Root, StartupBaseline.FilePath)}");
        return 0;

        static double? Round(double? ms) => ms is { } value ? Math.Round(value, 1) : null;
    }
}
