using System.Globalization;
using Prewire.Amqp;

namespace Prewire.Harness;

/// <summary>
/// `./build.sh demo`: publishes each app as NativeAOT and as a self-contained JIT build for the host
/// RID, and as NativeAOT for linux-arm64 (run under qemu: its time is emulation's, compared with
/// nothing), runs each to its ready line several times (against the broker given by RABBITMQ_URI,
/// which build.sh starts), and prints size and start-up per app and build.
/// </summary>
public static class Demo
{
    public static async Task<int> RunAsync(int runs, TextWriter output)
    {
        ArgumentNullException.ThrowIfNull(output);
        var rid = Repo.HostRid;
        var broker = Environment.GetEnvironmentVariable("RABBITMQ_URI") is { Length: > 0 } given ? given : null;
        output.WriteLine(broker is null
            ? "demo: no broker (RABBITMQ_URI or build/broker.sh start); the broker apps start without connecting"
            : $"demo: broker at {(AmqpUri.TryParse(broker, out var uri, out var error) ? uri : $"(RABBITMQ_URI: {error})")}");

        const string Emulated = "linux-arm64";
        var builds = new List<(App App, PublishResult Aot, PublishResult Jit, PublishResult Arm64)>();
        var step = 0;
        var steps = App.All.Count * 3;
        foreach (var app in App.All)
        {
            var aot = await PublishStepAsync(app, rid, PublishMode.Aot, ++step, steps, output).ConfigureAwait(false);
            var jit = await PublishStepAsync(app, rid, PublishMode.Jit, ++step, steps, output).ConfigureAwait(false);
            var arm64 = await PublishStepAsync(app, Emulated, PublishMode.Aot, ++step, steps, output).ConfigureAwait(false);
            if (!aot.Succeeded || !jit.Succeeded || !arm64.Succeeded) return 1;
            builds.Add((app, aot, jit, arm64));
        }

        var table = new List<string[]>();
        foreach (var (app, aot, jit, arm64) in builds)
        {
            output.WriteLine($"demo: starting {app} {runs}x per build (spawn to ready line)...");
            var aotTimes = new List<double>();
            var jitTimes = new List<double>();
            // One unmeasured run each warms the page cache; then the builds alternate run by run.
            await AppRuns.RunOnceAsync(app, aot.ExecutablePath, rid, broker).ConfigureAwait(false);
            await AppRuns.RunOnceAsync(app, jit.ExecutablePath, rid, broker).ConfigureAwait(false);
            for (var i = 0; i < runs; i++)
            {
                aotTimes.Add(await AppRuns.RunOnceAsync(app, aot.ExecutablePath, rid, broker).ConfigureAwait(false));
                jitTimes.Add(await AppRuns.RunOnceAsync(app, jit.ExecutablePath, rid, broker).ConfigureAwait(false));
            }
            var aotMs = Median(aotTimes);
            var jitMs = Median(jitTimes);
            table.Add([
                app.Name, Mb(aot.Size), Mb(jit.Size),
                Ms(aotMs), Ms(jitMs), (jitMs / aotMs).ToString("0.0x", CultureInfo.InvariantCulture),
                $"{aot.Duration.TotalSeconds:0} s",
            ]);

            var emulatedTimes = new List<double>();
            for (var i = 0; i < runs; i++) emulatedTimes.Add(await AppRuns.RunOnceAsync(app, arm64.ExecutablePath, Emulated, broker).ConfigureAwait(false));
            table.Add([$"{app.Name} ({Emulated})", Mb(arm64.Size), "-", $"{Ms(Median(emulatedTimes))} (qemu)", "-", "-", $"{arm64.Duration.TotalSeconds:0} s"]);
        }

        output.WriteLine();
        output.WriteLine($"{rid} host, {runs} runs per build, median spawn-to-ready; JIT = self-contained publish of the same framework;");
        output.WriteLine($"{Emulated} runs under qemu user-mode emulation: its start time is emulation's, compare nothing with it");
        Table.Write(output, ["app", "AOT binary", "JIT folder", "AOT start", "JIT start", "JIT/AOT", "AOT publish"], table);
        return 0;
    }

    private static async Task<PublishResult> PublishStepAsync(App app, string rid, PublishMode mode, int step, int steps, TextWriter output)
    {
        output.WriteLine($"demo: [{step}/{steps}] publishing {app} ({mode}, {rid})...");
        var result = await Publishing.PublishAsync(app, rid, mode).ConfigureAwait(false);
        output.WriteLine(result.Succeeded
            ? $"demo: [{step}/{steps}] {app} ({mode}) published in {result.Duration.TotalSeconds:0.0} s, {Mb(result.Size)}"
            : $"demo: [{step}/{steps}] {app} ({mode}) FAILED:\n{result.Errors}");
        return result;
    }

    private static double Median(List<double> values)
    {
        values.Sort();
        return values.Count % 2 == 1 ? values[values.Count / 2] : (values[(values.Count / 2) - 1] + values[values.Count / 2]) / 2;
    }

    internal static string Mb(long bytes) => (bytes / 1024.0 / 1024.0).ToString("0.0 'MB'", CultureInfo.InvariantCulture);

    private static string Ms(double ms) => ms.ToString("0.0 'ms'", CultureInfo.InvariantCulture);
}
