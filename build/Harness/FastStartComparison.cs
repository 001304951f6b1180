using System.Globalization;

namespace Prewire.Harness;

/// <summary>
/// The consoles as a plain publish builds them against their <c>-p:PrewireFastStart=true</c> build (linked
/// at a fixed address, nothing expanded before <c>Main</c>), natively: binary size, spawn to ready (the two
/// and the floor started in turn), instructions to ready.
/// </summary>
[System.Runtime.Versioning.SupportedOSPlatform("linux")]
public static class FastStartComparison
{
    // The consoles' goal is 1.5x the floor's start, a few ms: 21 runs of each cost about a second and
    // give a steadier median than the report's 5.
    private const int Runs = 21;

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
            // Without a broker a console, and the floor whatever it is given, prints its ready line and exits.
            var starts = await StartupRuns.MediansAsync(app, rid, null, Runs, plain.ExecutablePath, fast.ExecutablePath, floor.ExecutablePath).ConfigureAwait(false);
            rows.Add([
                app.Name, Table.Mb(plain.Size), Table.Mb(fast.Size),
                Table.Ms(starts[0]), Table.Ms(starts[1]), Ratio(starts[0] / starts[2]), Ratio(starts[1] / starts[2]),
                await InstructionsAsync(app, rid, plain, floor, broker).ConfigureAwait(false),
                await InstructionsAsync(app, rid, fast, floor, broker).ConfigureAwait(false),
            ]);
        }

        output.WriteLine();
        output.WriteLine($"-p:PrewireFastStart=true ({rid}): the plain build, the fast-start build and the floor started in turn, medians of {Runs};");
        output.WriteLine("start instructions as above");
        Table.Write(output, ["app", "binary", "fast start", "start AOT", "fast start", "/ floor", "fast start", "start instructions", "fast start"], rows);
        output.WriteLine();
        return true;

        static string Ratio(double ratio) => ratio.ToString("0.00x", CultureInfo.InvariantCulture);
    }

    private static async Task<string> InstructionsAsync(App app, string rid, PublishResult aot, PublishResult floor, string broker) =>
        await StartupCounts.InstructionsAsync(app, rid, aot, floor, broker, StartupFigure.Names.Ready).ConfigureAwait(false) is [var counted, ..]
            ? counted.App.ToString("N0", CultureInfo.InvariantCulture)
            : "-";
}
