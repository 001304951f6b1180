using System.Globalization;

namespace Prewire.Harness;

/// <summary>
/// Each app as a plain publish builds it against its <c>-p:PrewireFastStart=true</c> build (linked at a
/// fixed address, nothing expanded before <c>Main</c>), natively: binary size, spawn to ready (the two
/// started alternately, then the floor), instructions to ready.
/// </summary>
[System.Runtime.Versioning.SupportedOSPlatform("linux")]
public static class FastStartComparison
{
    public static async Task<bool> RunAsync(IReadOnlyList<AppBuilds> builds, PublishResult floor, int runs, string broker, TextWriter output)
    {
        ArgumentNullException.ThrowIfNull(builds);
        ArgumentNullException.ThrowIfNull(floor);
        ArgumentNullException.ThrowIfNull(output);
        var rid = Repo.HostRid;
        var rows = new List<string[]>();
        foreach (var build in builds)
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
            var starts = await StartupRuns.MediansAsync(app, rid, null, runs, plain.ExecutablePath, fast.ExecutablePath).ConfigureAwait(false);
            var floorStart = (await StartupRuns.MediansAsync(App.StartupFloor, rid, null, runs, floor.ExecutablePath).ConfigureAwait(false))[0];
            rows.Add([
                app.Name, Table.Mb(plain.Size), Table.Mb(fast.Size),
                Table.Ms(starts[0]), Table.Ms(starts[1]), Ratio(starts[0] / floorStart), Ratio(starts[1] / floorStart),
                await InstructionsAsync(app, rid, plain, floor, broker).ConfigureAwait(false),
                await InstructionsAsync(app, rid, fast, floor, broker).ConfigureAwait(false),
            ]);
        }

        output.WriteLine();
        output.WriteLine($"-p:PrewireFastStart=true ({rid}): the plain build and the fast-start build started alternately, medians of {runs}; / floor and");
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
