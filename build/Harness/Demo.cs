using System.Globalization;
using Prewire.Amqp;

namespace Prewire.Harness;

/// <summary>
/// `./build.sh demo`: publishes each app as NativeAOT and as a self-contained JIT build for the host
/// RID, and as NativeAOT for linux-arm64 (run under qemu: its time is emulation's, compared with
/// nothing), runs each to its ready line several times (against the broker given by RABBITMQ_URI,
/// which build.sh starts), and prints size and start-up per app and build; then runs the main job,
/// Publisher to Consumer through the broker, once per client used both ways (Prewire's from the default
/// build, RabbitMQ.Client's from the both-clients build), and prints what the apps reported.
/// </summary>
public static class Demo
{
    private const int MessagingCount = 20_000;
    private const int MessagingConcurrency = 16;

    private const string Emulated = AppBuilds.Arm64Rid;

    public static async Task<int> RunAsync(int runs, TextWriter output)
    {
        ArgumentNullException.ThrowIfNull(output);
        var broker = BrokerNode.GivenUri;
        output.WriteLine(broker is null
            ? "demo: no broker (RABBITMQ_URI or build/broker.sh start); the broker apps start without connecting"
            : $"demo: broker at {(AmqpUri.TryParse(broker, out var uri, out var error) ? uri : $"(RABBITMQ_URI: {error})")}");

        var builds = await AppBuilds.PublishAllAsync("demo", output).ConfigureAwait(false);
        if (builds is null) return 1;
        var table = await StartupRowsAsync(builds, broker, runs, output).ConfigureAwait(false);
        var messaging = broker is null ? [] : await MessagingRowsAsync(builds, broker, output).ConfigureAwait(false);
        if (messaging is null) return 1;
        WriteTables(table, messaging, runs, output);
        return 0;
    }

    // Per app: the host RID's AOT and JIT builds started alternately, then the arm64 build under qemu.
    private static async Task<List<string[]>> StartupRowsAsync(IReadOnlyList<AppBuilds> builds, string? broker, int runs, TextWriter output)
    {
        var table = new List<string[]>();
        foreach (var (app, aot, jit, arm64) in builds)
        {
            output.WriteLine($"demo: starting {app} {runs}x per build (spawn to ready line)...");
            var medians = await StartupRuns.MediansAsync(app, Repo.HostRid, broker, runs, aot.ExecutablePath, jit.ExecutablePath).ConfigureAwait(false);
            var (aotMs, jitMs) = (medians[0], medians[1]);
            table.Add([
                app.Name, Table.Mb(aot.Size), Table.Mb(jit.Size),
                Table.Ms(aotMs), Table.Ms(jitMs), (jitMs / aotMs).ToString("0.0x", CultureInfo.InvariantCulture),
                $"{aot.Duration.TotalSeconds:0} s",
            ]);

            var emulatedMs = (await StartupRuns.MediansAsync(app, Emulated, broker, runs, arm64.ExecutablePath).ConfigureAwait(false))[0];
            table.Add([$"{app.Name} ({Emulated})", Table.Mb(arm64.Size), "-", $"{Table.Ms(emulatedMs)} (qemu)", "-", "-", $"{arm64.Duration.TotalSeconds:0} s"]);
        }
        return table;
    }

    // One main job per client, both apps on it: the default build for Prewire's, the both-clients build
    // published here for RabbitMQ.Client's. Null when that publish failed.
    private static async Task<List<string[]>?> MessagingRowsAsync(IReadOnlyList<AppBuilds> builds, string broker, TextWriter output)
    {
        var messaging = new List<string[]>();
        foreach (var client in AppClient.All)
        {
            var (publisher, consumer) = (builds.Single(b => b.App == App.Publisher).Aot, builds.Single(b => b.App == App.Consumer).Aot);
            if (client.Build != publisher.Clients)
            {
                publisher = await AppBuilds.PublishStepAsync("demo:", App.Publisher, Repo.HostRid, PublishMode.Aot, client.Build, output).ConfigureAwait(false);
                consumer = await AppBuilds.PublishStepAsync("demo:", App.Consumer, Repo.HostRid, PublishMode.Aot, client.Build, output).ConfigureAwait(false);
                if (!publisher.Succeeded || !consumer.Succeeded) return null;
            }
            output.WriteLine($"demo: {MessagingCount:N0} messages, Publisher ({client}, {MessagingConcurrency} in flight) → broker → Consumer ({client})...");
            messaging.Add((await MessagingRun.RunAsync(client, publisher, consumer, broker, MessagingCount, MessagingConcurrency).ConfigureAwait(false)).Row());
        }
        return messaging;
    }

    private static void WriteTables(List<string[]> table, List<string[]> messaging, int runs, TextWriter output)
    {
        var rid = Repo.HostRid;
        output.WriteLine();
        output.WriteLine($"{rid} host, {runs} runs per build, median spawn-to-ready; JIT = self-contained publish of the same framework;");
        output.WriteLine($"{Emulated} runs under qemu user-mode emulation: its start time is emulation's, compare nothing with it");
        Table.Write(output, ["app", "AOT binary", "JIT folder", "AOT start", "JIT start", "JIT/AOT", "AOT publish"], table);
        if (messaging.Count == 0) return;
        output.WriteLine();
        output.WriteLine($"The main job, NativeAOT on {rid}: {MessagingCount:N0} messages through a quorum queue, the Consumer running while the Publisher");
        output.WriteLine("publishes, both on the row's client (Prewire: the default build; RabbitMQ.Client: built with -p:PrewireAmqpClient=Both); start = since Main,");
        output.WriteLine("B/msg = whole process after the first tenth, peak RSS = VmHWM (the apps' own --json reports)");
        Table.Write(output, MessagingRun.Header, messaging);
    }
}
