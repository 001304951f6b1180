using System.Globalization;
using System.Text.Json;

namespace Prewire.Harness;

/// <summary>
/// One short run of the main job: the Consumer and the Publisher (NativeAOT) against a broker, both on
/// one client (publishing and consuming), both with <c>--json</c>; their reports side by side, and the
/// time from the Publisher's spawn to the last message consumed. The demo prints one row per client;
/// <see cref="MessagingBenchmark"/> compares runs.
/// </summary>
public sealed record MessagingRun(AppClient Client, JsonElement Publisher, JsonElement Consumer, long PublisherSize, long ConsumerSize, TimeSpan Elapsed)
{

    public static readonly string[] Header =
        ["client", "publisher start", "msgs/s", "confirm p99", "B/msg", "peak RSS", "consumer start", "msgs/s", "end-to-end p99", "B/msg", "peak RSS", "binaries"];

    /// <summary>
    /// Publishes and consumes <paramref name="count"/> messages of <paramref name="size"/> body bytes (0:
    /// the text alone) through a queue of their own; <paramref name="both"/> are arguments both apps get
    /// besides the common ones (e.g. <c>--heap-check</c>), each may run for <paramref name="timeout"/>
    /// (default 3 minutes); both get <paramref name="environment"/> too (an OTLP endpoint, say). The
    /// builds must hold <paramref name="client"/>.
    /// </summary>
    public static async Task<MessagingRun> RunAsync(AppClient client, PublishResult publisher, PublishResult consumer, string broker, int count, int concurrency, int size = 0, string[]? both = null,
        TimeSpan? timeout = null, IReadOnlyDictionary<string, string>? environment = null)
    {
        ArgumentNullException.ThrowIfNull(publisher);
        ArgumentNullException.ThrowIfNull(consumer);
        ArgumentNullException.ThrowIfNull(client);
        // The builds' RID: linux-arm64 ones run under qemu on an x64 host.
        var rid = publisher.Rid;
        string[] common = ["--uri", broker, "--queue", $"prewire.demo.{Guid.NewGuid():N}", "--count", $"{count}", "--json", .. client.Arguments, .. both ?? []];
        await using var consume = AppProcess.Start(consumer.ExecutablePath, common, environment, rid: rid);
        await consume.WaitForReadyAsync(AppRuns.ReadyTimeout(rid)).ConfigureAwait(false);
        var started = System.Diagnostics.Stopwatch.StartNew();
        await using var publish = AppProcess.Start(publisher.ExecutablePath,
            [.. common, "--concurrency", $"{concurrency}", "--size", $"{size}"], environment, rid: rid);
        var limit = timeout ?? TimeSpan.FromMinutes(3);
        if (await publish.WaitForExitAsync(limit).ConfigureAwait(false) != 0 || await consume.WaitForExitAsync(limit).ConfigureAwait(false) != 0)
            throw new InvalidOperationException($"the {client} run failed:\n{publish.Stderr}\n{consume.Stderr}");
        return new MessagingRun(client, Report(publish.Stdout), Report(consume.Stdout), publisher.Size, consumer.Size, started.Elapsed);
    }

    // With --json the report is stdout's one line that is a JSON object (the ready line comes before it).
    private static JsonElement Report(string stdout) =>
        JsonDocument.Parse(stdout.Split('\n').Last(l => l.StartsWith('{'))).RootElement.Clone();

    public string[] Row() =>
    [
        Client.Name,
        Ms(Publisher, "startupMs"), Number(Publisher, "msgsPerSecond", "0"), Ms(Publisher, "confirmP99Ms"), Number(Publisher, "bytesPerMessage", "0"), Mb(Publisher),
        Ms(Consumer, "startupMs"), Number(Consumer, "msgsPerSecond", "0"), Ms(Consumer, "endToEndP99Ms"), Number(Consumer, "bytesPerMessage", "0"), Mb(Consumer),
        $"{Table.Mb(PublisherSize)} + {Table.Mb(ConsumerSize)}",
    ];

    /// <summary>A figure of a report formatted, or "-" when it has none.</summary>
    public static string Number(JsonElement report, string name, string format) =>
        report.GetProperty(name) is { ValueKind: JsonValueKind.Number } value ? value.GetDouble().ToString(format, CultureInfo.InvariantCulture) : "-";

    private static string Ms(JsonElement report, string name) =>
        report.GetProperty(name) is { ValueKind: JsonValueKind.Number } value ? Table.Ms(value.GetDouble()) : "-";

    private static string Mb(JsonElement report) =>
        report.GetProperty("peakRssMb") is { ValueKind: JsonValueKind.Number } value ? value.GetDouble().ToString("0.0 'MB'", CultureInfo.InvariantCulture) : "-";
}
