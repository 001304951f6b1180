using System.Globalization;
using Prewire.Images;

namespace Prewire.Harness;

/// <summary>
/// <c>./build.sh report</c>: one table, app × RID, of what the smoke tests check, measured in one run:
/// binary and image size, spawn-to-ready (AOT, and JIT on this host), spawn to the first handled
/// message (prewired AOT vs expression-tree JIT), steady-state bytes per message, trim/AOT warnings;
/// then the consoles against their fast-start builds (<see cref="FastStartComparison"/>) and the HttpEndpoint
/// against the <c>webapiaot</c> template (<see cref="TemplateComparison"/>).
/// linux-arm64 runs under qemu here: its times are emulation's, comparable only within its row.
/// </summary>
[System.Runtime.Versioning.SupportedOSPlatform("linux")]
public static class Report
{
    private const int Messages = 2_000;

    public static async Task<int> RunAsync(int runs, TextWriter output)
    {
        ArgumentNullException.ThrowIfNull(output);
        var broker = BrokerNode.RequiredUri("report");
        var builds = await AppBuilds.PublishAllAsync("report", output).ConfigureAwait(false);
        if (builds is null) return 1;
        var images = await ImageSizesAsync(builds, output).ConfigureAwait(false);
        if (images is null) return 1;

        // Instructions to the ready line, natively (cachegrind), beside the floor's: what the gate counts.
        var floor = await Publishing.PublishAsync(App.StartupFloor, Repo.HostRid, PublishMode.Aot).ConfigureAwait(false);
        if (!floor.Succeeded)
        {
            output.WriteLine($"report: the NativeAOT floor FAILED:\n{floor.Errors}");
            return 1;
        }

        long? floorInstructions = null;
        var rows = new List<string[]>();
        foreach (var build in builds)
        {
            foreach (var rid in Repo.Rids)
            {
                var (row, counted) = await RowAsync(build, rid, runs, images[(build.App, rid)], floor, broker, output).ConfigureAwait(false);
                if (row is null) return 1;
                floorInstructions ??= counted?.Floor;
                rows.Add(row);
            }
        }

        WriteLegend(output, runs, floorInstructions);
        Table.Write(output, ["app", "RID", "binary", "image", "start AOT", "/ floor", "start JIT", "start instructions", "first message AOT", "first message ET JIT", "B/message", "warnings"], rows);
        output.WriteLine();
        return await FastStartComparison.RunAsync(builds, floor, broker, output).ConfigureAwait(false)
            && await TemplateComparison.RunAsync(builds, runs, output).ConfigureAwait(false) ? 0 : 1;
    }

    /// <summary>Each app's compressed image per RID, pushed to a loopback registry on a base of the C runtime files alone; null when one fails.</summary>
    private static async Task<Dictionary<(App, string), long>?> ImageSizesAsync(IReadOnlyList<AppBuilds> builds, TextWriter output)
    {
        output.WriteLine("report: container images (loopback registry, base with the binaries' C runtime)...");
        var images = new Dictionary<(App, string), long>();
        await using var registry = await LocalRegistry.StartAsync(Path.Combine(Repo.Artifacts, "report", "registry")).ConfigureAwait(false);
        foreach (var rid in Repo.Rids)
        {
            var aots = builds.Select(b => b.AotFor(rid)).ToList();
            var baseImage = await BaseImage.PushAsync(registry, rid, aots.Select(a => a.ExecutablePath), Path.Combine(Repo.Artifacts, "report", rid, "base")).ConfigureAwait(false);
            foreach (var aot in aots)
            {
                var image = await ContainerImage.PublishAsync(aot.App, rid, baseImage, registry).ConfigureAwait(false);
                if (!image.Publish.Succeeded)
                {
                    output.WriteLine($"report: PublishContainer of {aot.App} ({rid}) FAILED:\n{image.Publish.Errors}");
                    return null;
                }
                images[(aot.App, rid)] = await image.CompressedSizeAsync().ConfigureAwait(false);
            }
        }
        return images;
    }

    /// <summary>
    /// One app on one RID: its start (AOT and JIT) beside the floor's, its instructions to ready, first
    /// message (prewired AOT against expression-tree JIT) and steady bytes per message; a null row when a publish fails.
    /// </summary>
    private static async Task<(string[]? Row, InstructionFigure? Counted)> RowAsync(AppBuilds build, string rid, int runs, long imageSize, PublishResult floor, string broker, TextWriter output)
    {
        var app = build.App;
        var aot = build.AotFor(rid);
        output.WriteLine($"report: {app} ({rid}): start-up, warm-up, allocations...");
        var emulated = Qemu.Emulates(rid);
        var runsHere = StartupRuns.RunsFor(rid, runs);
        var start = emulated
            ? [(await StartupRuns.MediansAsync(app, rid, null, runsHere, aot.ExecutablePath).ConfigureAwait(false))[0], double.NaN]
            : await StartupRuns.MediansAsync(app, rid, null, runsHere, aot.ExecutablePath, build.Jit.ExecutablePath).ConfigureAwait(false);

        // The NativeAOT hello world's start right after (natively): the consoles' goal is 1.5x it.
        var floorStart = emulated ? double.NaN : (await StartupRuns.MediansAsync(App.StartupFloor, rid, null, runsHere, floor.ExecutablePath).ConfigureAwait(false))[0];
        var counted = !emulated && await StartupCounts.InstructionsAsync(app, rid, aot, floor, broker, StartupFigure.Names.Ready).ConfigureAwait(false) is [var first, ..] ? first : null;

        var expressionTree = await Publishing.PublishAsync(app, rid, PublishMode.ExpressionTreeJit).ConfigureAwait(false);
        if (!expressionTree.Succeeded)
        {
            output.WriteLine($"report: expression-tree build of {app} ({rid}) FAILED:\n{expressionTree.Errors}");
            return (null, null);
        }
        var (aotRuns, treeRuns) = (new List<WarmupRun>(), new List<WarmupRun>());
        for (var i = 0; i < runsHere; i++)
        {
            aotRuns.Add(await WarmupRun.TimedAsync(aot.ExecutablePath, rid).ConfigureAwait(false));
            treeRuns.Add(await WarmupRun.TimedAsync(expressionTree.ExecutablePath, rid).ConfigureAwait(false));
        }

        // The Publisher through AmqpPublisher and the broker; the Consumer's deliveries and the HttpEndpoint's requests in-process.
        string[] path = app == App.Publisher ? ["--uri", broker, "--queue", "prewire.report"] : [];
        var steady = await WarmupRun.RunAsync(aot.ExecutablePath, rid, ["--count", $"{(emulated ? Messages / 4 : Messages)}", .. path]).ConfigureAwait(false);

        string Emulation(string figure) => emulated && figure != "-" ? $"{figure} (qemu)" : figure;
        string[] row = [
            app.Name, rid, Table.Mb(aot.Size), Table.Mb(imageSize),
            Emulation(Table.Ms(start[0])), emulated ? "-" : (start[0] / floorStart).ToString("0.00x", CultureInfo.InvariantCulture),
            emulated ? "-" : Table.Ms(start[1]),
            counted is null ? "-" : counted.App.ToString("N0", CultureInfo.InvariantCulture),
            Emulation(Table.Ms(WarmupRun.Median(aotRuns).SpawnToHandledMs)), Emulation(Table.Ms(WarmupRun.Median(treeRuns).SpawnToHandledMs)),
            steady.BytesPerMessage!.Value.ToString("0.#", CultureInfo.InvariantCulture),
            aot.TrimWarnings.Count.ToString(CultureInfo.InvariantCulture),
        ];
        return (row, counted);
    }

    private static void WriteLegend(TextWriter output, int runs, long? floorInstructions)
    {
        output.WriteLine();
        output.WriteLine($"{runs} runs per figure ({StartupRuns.RunsFor(AppBuilds.Arm64Rid, runs)} under qemu), medians; start = spawn to ready line without a broker; / floor = over the");
        output.WriteLine("NativeAOT hello world's (build/StartupFloor), measured right after each app's (natively only); first message = spawn");
        output.WriteLine("to the first handled message (--warmup-report); B/message = steady state, process-wide (Publisher: confirmed through AmqpPublisher");
        output.WriteLine("and the broker; Consumer: deliveries in-process; HttpEndpoint: requests through its ingress pipeline in-process); image = compressed");
        output.WriteLine("layers and config, on a base of the C runtime files alone; start instructions = user-space instructions from spawn to the");
        output.WriteLine(string.Create(CultureInfo.InvariantCulture, $"ready line without a broker (cachegrind on one core, the least of {StartupCounts.InstructionRuns}; natively only), the NativeAOT floor's (build/StartupFloor) {floorInstructions:N0}"));
    }
}
