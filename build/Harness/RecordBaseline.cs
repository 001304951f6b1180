using System.Globalization;

namespace Prewire.Harness;

/// <summary>
/// `./build.sh baseline [pairs]`: publishes every app as the demo does (<see cref="AppBuilds"/>) and the
/// NativeAOT floor, measures each the way the gate does and rewrites build/startup-baseline.json.
/// Run it on an idle machine, on purpose, and commit the file with the change that moved the figures;
/// every count that moved beyond the gate's tolerance against the file it replaces is named, and
/// wants its reason in the commit message. `./build.sh baseline counts` re-records only what load does
/// not move (instructions, faults, peak RSS) and keeps the file's timed figures: for a change to how
/// starts are counted, on a host whose clock is not fit to record times (a floor of 7 ms, not 2.7).
/// </summary>
public static class RecordBaseline
{
    public static async Task<int> RunAsync(int pairs, bool countsOnly, TextWriter output)
    {
        ArgumentNullException.ThrowIfNull(output);
        var previous = File.Exists(StartupBaseline.FilePath) ? StartupBaseline.Read() : null;
        if (countsOnly && previous is null)
        {
            output.WriteLine($"baseline: counts: there is no {Path.GetRelativePath(Repo.Root, StartupBaseline.FilePath)} whose timed figures to keep; record it whole");
            return 1;
        }
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
        var moved = new List<string>();
        foreach (var build in builds)
        {
            output.WriteLine($"baseline: {(countsOnly ? "counting" : "timing")} {build.App} against the floor...");
            foreach (var rid in Repo.Rids)
            {
                var entry = countsOnly
                    ? await StartupGate.RecountAsync(previous!.Find(build.App.Name, rid) ?? throw new InvalidOperationException($"{build.App.Name} {rid} is not in the recorded baseline; record it whole"),
                        build.App, rid, build.AotFor(rid), floors[rid], broker).ConfigureAwait(false)
                    : await MeasureSoundAsync(build, rid, floors[rid], broker, pairs, output).ConfigureAwait(false);
                if (entry is null) return 1;
                entries.Add(entry with { Figures = [.. entry.Figures.Select(Rounded)] });
                if (previous is not null) moved.AddRange(previous.CheckCounts(entry));
                rows.AddRange(TableRows(entry, build.App.Name, rid));
            }
        }

        new StartupBaseline
        {
            RecordedWith = countsOnly ? $"{TimedPart(previous!.RecordedWith)}{CountsOnlyNote}" : $"./build.sh baseline {pairs} on {Environment.ProcessorCount} cores, .NET {Environment.Version}; the least spawn-to-ready and spawn-to-exit times of the app and of build/StartupFloor over {pairs} alternating pairs, and apart the least of each time off the CPU (the time less the CPU the process used) ({StartupRuns.PairsFor("linux-arm64", pairs)} under qemu), {(Prewire.Build.StartupInstruments.Raised.Count > 0 ? $"spawned at niceness {Prewire.Build.StartupInstruments.Niceness}" : "spawned at the default priority")}; natively the least of {StartupCounts.InstructionRuns} instruction counts (cachegrind on one core, spawn to exit) of each, and the least faults and peak RSS of {StartupCounts.ResourceRuns} starts (GNU time)",
            Entries = entries,
        }.Write();
        Table.Write(output, ["app", "rid", "figure", "floor", "app", "excess", "allowed"], rows);
        output.WriteLine($"baseline: wrote {Path.GetRelativePath(Repo.Root, StartupBaseline.FilePath)}");
        foreach (var line in moved) output.WriteLine($"baseline: moved beyond the gate's tolerance: {line}");
        if (moved.Count > 0) output.WriteLine($"baseline: {moved.Count} counts moved beyond the gate's tolerance against the file this replaces; say why in the commit message");
        return 0;
    }

    /// <summary>The printed table's rows for one recorded entry: its counts, its start's resources and its timed figures, each beside what the gate allows.</summary>
    private static IEnumerable<string[]> TableRows(BaselineEntry entry, string app, string rid)
    {
        foreach (var f in entry.Instructions ?? [])
        {
            yield return [
                app, rid, $"{f.Name} (instructions)", f.Floor.ToString("N0", CultureInfo.InvariantCulture), f.App.ToString("N0", CultureInfo.InvariantCulture),
                f.Excess.ToString("N0", CultureInfo.InvariantCulture), StartupBaseline.InstructionToleranceFor(f.Name).ToString("'±'0%", CultureInfo.InvariantCulture),
            ];
        }
        if (entry.Resources is { } r)
        {
            yield return [app, rid, "start: faults (minor + major), peak RSS", "", string.Create(CultureInfo.InvariantCulture, $"{r.MinorFaults:N0} + {r.MajorFaults:N0}, {r.PeakRssKb:N0} KB"), "",
                string.Create(CultureInfo.InvariantCulture, $"+{StartupBaseline.FaultTolerance:0%}, +{StartupBaseline.PeakRssTolerance:0%}")];
        }
        foreach (var f in entry.Figures)
        {
            yield return [
                app, rid, f.Name, Table.Ms(f.FloorMs), Table.Ms(f.AppMs),
                string.Create(CultureInfo.InvariantCulture, $"{f.ExcessMs:0.00} ms{(f.ExcessOffCpuMs is { } off ? $", {off:0.00} off the CPU" : "")}"),
                StartupBaseline.AllowanceMs(f, rid).ToString("'+'0.00 'ms'", CultureInfo.InvariantCulture),
            ];
        }
    }

    /// <summary>Times allowed for a figure with the app under the floor (<see cref="StartupFigure.AppUnderFloor"/>) before the recording is refused.</summary>
    public const int MaxMeasurements = 3;

    // A figure with the app under the floor is measured anew, not joined to the spoiled one (the least
    // of both would keep it); after three the host is not fit to record on, and nothing is written.
    private static async Task<BaselineEntry?> MeasureSoundAsync(AppBuilds build, string rid, PublishResult floor, string broker, int pairs, TextWriter output)
    {
        var entry = await StartupGate.MeasureAsync(build.App, rid, build.AotFor(rid), floor, broker, pairs).ConfigureAwait(false);
        for (var i = 1; entry.Figures.Where(f => f.AppUnderFloor).Select(f => f.Name).ToHashSet() is { Count: > 0 } spoiled; i++)
        {
            var names = string.Join(", ", spoiled);
            if (i == MaxMeasurements)
            {
                output.WriteLine($"baseline: {build.App.Name} {rid}: {names}: the app under the NativeAOT floor {MaxMeasurements} times; this host is not fit to record times on, nothing written");
                return null;
            }
            output.WriteLine($"baseline: {build.App.Name} {rid}: {names}: the app under the NativeAOT floor, measured again");
            entry = await StartupRuns.MeasureAsync(build.App, rid, build.AotFor(rid), floor, broker, pairs,
                earlier: entry with { Figures = [.. entry.Figures.Where(f => !spoiled.Contains(f.Name))] }, only: spoiled).ConfigureAwait(false);
        }
        return entry;
    }

    private static StartupFigure Rounded(StartupFigure f) => f with
    {
        FloorMs = Math.Round(f.FloorMs, 2),
        AppMs = Math.Round(f.AppMs, 2),
        FloorOffCpuMs = f.FloorOffCpuMs is { } floor ? Math.Round(floor, 2) : null,
        AppOffCpuMs = f.AppOffCpuMs is { } app ? Math.Round(app, 2) : null,
    };

    private const string CountsOnlyNote = "; the counts re-recorded alone since (./build.sh baseline counts), the timed figures kept";

    private static string TimedPart(string recordedWith) =>
        recordedWith.IndexOf(CountsOnlyNote, StringComparison.Ordinal) is var i and >= 0 ? recordedWith[..i] : recordedWith;
}
