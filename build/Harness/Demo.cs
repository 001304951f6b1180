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
        var broker = BrokerNode.GivenUri;
        output.WriteLine(broker is null
            ? "demo: no broker (RABBITMQ_URI or build/broker.sh start); the broker apps start without connecting"
            : $"demo: broker at {(AmqpUri.TryParse(broker, out var uri, out var error) ? uri : $"(RABBITMQ_URI: {error})")}");

        const string Emulated = AppBuilds.Arm64Rid;
        var builds = await AppBuilds.PublishAllAsync("demo", output).ConfigureAwait(false);
        if (builds is null) return 1;

        var table = new List<string[]>();
        foreach (var (app, aot, jit, arm64) in builds)
        {
            output.WriteLine($"demo: starting {app} {runs}x per build (spawn to ready line)...");
            var medians = await StartupRuns.MediansAsync(app, rid, broker, runs, aot.ExecutablePath, jit.ExecutablePath).ConfigureAwait(false);
            var (aotMs, jitMs) = (medians[0], medians[1]);
            table.Add([
                app.Name, Table.Mb(aot.Size), Table.Mb(jit.Size),
                Table.Ms(aotMs), Table.Ms(jitMs), (jitMs / aotMs).ToString("0.0x", CultureInfo.InvariantCulture),
                $"{aot.Duration.TotalSeconds:0} s",
            ]);

            var emulatedMs = (await StartupRuns.MediansAsync(app, Emulated, broker, runs, arm64.ExecutablePath).ConfigureAwait(false))[0];
            table.Add([$"{app.Name} ({Emulated})", Table.Mb(arm64.Size), "-", $"{Table.Ms(emulatedMs)} (qemu)", "-", "-", $"{arm64.Duration.TotalSeconds:0} s"]);
        }

        output.WriteLine();
        output.WriteLine($"{rid} host, {runs} runs per build, median spawn-to-ready; JIT = self-contained publish of the same framework;");
        output.WriteLine($"{Emulated} runs under qemu user-mode emulation: its start time is emulation's, compare nothing with it");
        Table.Write(output, ["app", "AOT binary", "JIT folder", "AOT start", "JIT start", "JIT/AOT", "AOT publish"], table);
        return 0;
    }
}
