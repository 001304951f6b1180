using System.Globalization;

namespace Prewire.Harness;

/// <summary>
/// The consoles as a plain publish builds them against their <c>-p:PrewireFastStart=true</c> build (linked
/// at a fixed address, nothing expanded before <c>Main</c>), natively: binary size, spawn to ready over the
/// floor's as the baseline records it (the least of 60 alternating pairs), instructions to ready.
/// </summary>
[System.Runtime.Versioning.SupportedOSPlatform("linux")]
public static class FastStartComparison
{
    public static async Task<bool> RunAsync(IReadOnlyList<AppBuilds> builds, PublishResult floor, string broker, TextWriter output)
    {
        ArgumentNullException.ThrowIfNull(builds);
        ArgumentNullException.ThrowIfNull(floor);
        ArgumentNullException.ThrowIfNull(output);
        var rid = Repo.HostRid;
        var rows = new List<string[]>();
        foreach (var build in builds.Where(b => !b.App.IsWeb))
        {
            var app = build.App;
            output.WriteLine($"report: {app} ({rid}) built for a fast start: publishing, start-up...");
            var fast = await Publishing.PublishAsync(app, rid, PublishMode.AotFastStart).ConfigureAwait(false);
            if (!fast.Succeeded)
            {
                output.WriteLine($"report: fast-start build of {app} ({rid}) FAILED:\n{fast.Errors}");
                return false;
            }
            var plain = build.AotFor(rid);
            // The consoles' goal, 1.5x the floor's start, is measured as the baseline records it.
            var plainStart = await StartupRuns.ReadyFigureAsync(app, rid, plain, floor, StartupRuns.GatePairs).ConfigureAwait(false);
            var fastStart = await StartupRuns.ReadyFigureAsync(app, rid, fast, floor, StartupRuns.GatePairs).ConfigureAwait(false);
            rows.Add([
                app.Name, Table.Mb(plain.Size), Table.Mb(fast.Size),
                Table.Ms(plainStart.AppMs), Table.Ms(fastStart.AppMs), Ratio(plainStart), Ratio(fastStart),
                await InstructionsAsync(app, rid, plain, floor, broker).ConfigureAwait(false),
                await InstructionsAsync(app, rid, fast, floor, broker).ConfigureAwait(false),
            ]);
        }

        output.WriteLine();
        output.WriteLine($"-p:PrewireFastStart=true ({rid}): start = spawn to ready line without a broker, the least of {StartupRuns.GatePairs} pairs alternating with the");
        output.WriteLine("floor, as ./build.sh baseline records it; / floor = over the floor's least in those pairs; start instructions as above");
        Table.Write(output, ["app", "binary", "fast start", "start AOT", "fast start", "/ floor", "fast start", "start instructions", "fast start"], rows);
        output.WriteLine();
        return true;

        static string Ratio(StartupFigure figure) => (figure.AppMs / figure.FloorMs).ToString("0.00x", CultureInfo.InvariantCulture);
    }

    private static async Task<string> InstructionsAsync(App app, string rid, PublishResult aot, PublishResult floor, string broker) =>
        await StartupCounts.InstructionsAsync(app, rid, aot, floor, broker, StartupFigure.Names.Ready).ConfigureAwait(false) is [var counted, ..]
            ? counted.App.ToString("N0", CultureInfo.InvariantCulture)
            : "-";
}
