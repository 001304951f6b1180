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
        var broker = Environment.GetEnvironmentVariable("RABBITMQ_URI") is { Length: > 0 } given ? given
            : throw new InvalidOperationException("baseline: RABBITMQ_URI is not set; ./build.sh baseline starts a broker");
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
                var medians = native
                    ? await StartupRuns.MediansAsync(app, rid, brokerUri: null, runs, binary.ExecutablePath, jit.ExecutablePath).ConfigureAwait(false)
                    : await StartupRuns.MediansAsync(app, rid, brokerUri: null, RunsFor(rid, runs), binary.ExecutablePath).ConfigureAwait(false);
                double? withBroker = app.IsWeb ? null
                    : (await StartupRuns.MediansAsync(app, rid, broker, RunsFor(rid, runs), binary.ExecutablePath).ConfigureAwait(false))[0];
                entries.Add(new BaselineEntry(app.Name, rid, Math.Round(medians[0], 1), withBroker is { } w ? Math.Round(w, 1) : null, binary.Size));
                var emulated = native ? "" : " (qemu)";
                rows.Add([app.Name, rid, binary.Size.ToString("N0", CultureInfo.InvariantCulture), Demo.Ms(medians[0]) + emulated,
                    withBroker is { } ms ? Demo.Ms(ms) + emulated : "-", native ? (medians[1] / medians[0]).ToString("0.0x", CultureInfo.InvariantCulture) : "-"]);
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
    }

    /// <summary>Runs per measurement: fewer under qemu, where one start takes about a second.</summary>
    public static int RunsFor(string rid, int runs) => Qemu.Emulates(rid) ? Math.Max(3, runs / 2) : runs;
}
