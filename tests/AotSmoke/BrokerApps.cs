using System.Globalization;
using System.Text.Json;
using System.Text.RegularExpressions;
using Prewire.Testing;

namespace Prewire.AotSmoke;

/// <summary>
/// The Publisher and the Consumer of one RID run against one broker, and what their report lines say:
/// the runs the messaging tests are made of. Every run must end within its timeout (a hang fails).
/// Given <paramref name="tls"/>, the apps connect to those amqps:// nodes trusting that CA file, while
/// pika still reads the queues over the plain <paramref name="broker"/>.
/// </summary>
internal sealed partial class BrokerApps(PublishedApps published, string rid, string broker, (string Uri, string CaFile)? tls = null)
{
    /// <summary>The broker as --uri takes it: one node, or several separated by commas.</summary>
    public string Broker => broker;

    /// <summary>Variables every app started here gets (an OTLP endpoint, say), beside the inherited ones.</summary>
    public IReadOnlyDictionary<string, string>? Environment { get; init; }

    /// <summary>A command every app started here runs under, its arguments first (GNU time, say).</summary>
    public IReadOnlyList<string>? Launcher { get; init; }

    /// <summary>The build the apps are started from, with the clients their arguments need. Defaults to <see cref="PublishMode.Aot"/>.</summary>
    public PublishMode Mode { get; init; } = PublishMode.Aot;

    private string[] Connect => tls is { } over ? ["--uri", over.Uri, "--ca-file", over.CaFile] : ["--uri", broker];

    /// <summary>The apps of <paramref name="rid"/> on the node's amqps:// listener.</summary>
    public static BrokerApps OverTls(PublishedApps published, string rid, BrokerNode node) =>
        new(published, rid, node.Uri.ToString(), (node.TlsUri.ToString(), node.CaFile));

    /// <summary>Starts <paramref name="app"/> from the build its <paramref name="args"/> need (<see cref="AppClient.BuildFor"/>).</summary>
    public async Task<AppProcess> StartAsync(App app, string queue, int count, params string[] args)
    {
        var build = await published.GetSucceededAsync(app, rid, Mode, AppClient.BuildFor(args));
        return AppProcess.Start(build.ExecutablePath, [.. Connect, "--queue", queue, "--count", $"{count}", .. args], Environment, rid: rid, launcher: Launcher);
    }

    /// <summary>Starts <paramref name="app"/> without a count: the Consumer as a worker, running until it is stopped.</summary>
    public async Task<AppProcess> StartWorkerAsync(App app, string queue, params string[] args)
    {
        var build = await published.GetSucceededAsync(app, rid, Mode, AppClient.BuildFor(args));
        return AppProcess.Start(build.ExecutablePath, [.. Connect, "--queue", queue, .. args], Environment, rid: rid);
    }

    /// <summary>Waits for <paramref name="process"/> to exit with <paramref name="expected"/>; if it does not, says what it printed.</summary>
    public static async Task AssertExitsAsync(AppProcess process, int expected, TimeSpan timeout)
    {
        var exitCode = await process.WaitForExitAsync(timeout);
        Assert.True(exitCode == expected, $"exit {exitCode}, expected {expected}\nstderr:\n{process.Stderr}\nstdout (end):\n{Tail(process.Stdout)}");

        static string Tail(string text) => text.Length > 3_000 ? text[^3_000..] : text;
    }

    /// <summary>Publishes <paramref name="count"/> messages; the run must end 0. Returns its stdout.</summary>
    public async Task<string> PublishAsync(string queue, int count, params string[] args)
    {
        await using var publish = await StartAsync(App.Publisher, queue, count, args);
        await AssertExitsAsync(publish, 0, TimeSpan.FromMinutes(3));
        Assert.Equal(count, Confirmed(publish.Stdout));
        return publish.Stdout;
    }

    /// <summary>Consumes until <paramref name="count"/> are settled; the run must end 0 with nothing on stderr. Returns its stdout.</summary>
    public async Task<string> ConsumeAsync(string queue, int count, params string[] args)
    {
        await using var consume = await StartAsync(App.Consumer, queue, count, args);
        await AssertExitsAsync(consume, 0, TimeSpan.FromMinutes(3));
        Assert.Equal("", consume.Stderr);
        return consume.Stdout;
    }

    /// <summary>The Publisher's report: messages confirmed.</summary>
    public static int Confirmed(string stdout) => Number(Published(), stdout, "confirmed");

    /// <summary>The Consumer's report: messages settled (handled or dead-lettered) of those requested, which must be <paramref name="requested"/>.</summary>
    public static int Acknowledged(string stdout, int requested)
    {
        Assert.Equal(requested, Number(Handled(), stdout, "requested"));
        return Number(Handled(), stdout, "acknowledged");
    }

    /// <summary>The report of a Consumer that ran without a count: messages settled (handled or dead-lettered).</summary>
    public static int AcknowledgedByWorker(string stdout) => Number(HandledByWorker(), stdout, "acknowledged");

    /// <summary>A figure of the Consumer's report: dead-lettered, duplicates or reconnects.</summary>
    public static int ConsumerReported(string stdout, string figure) => Number(Handled(), stdout, figure);

    /// <summary>A figure of the Publisher's report: republished or reconnects.</summary>
    public static int PublisherReported(string stdout, string figure) => Number(Published(), stdout, figure);

    /// <summary>Takes one message off <paramref name="queue"/> with Debian's python3-pika, or null when it is empty.</summary>
    public async Task<ForeignMessage?> GetWithPikaAsync(string queue)
    {
        using var json = JsonDocument.Parse(await Pika("get", queue));
        var root = json.RootElement;
        if (root.TryGetProperty("empty", out _)) return null;
        return new ForeignMessage(
            Convert.FromHexString(root.GetProperty("body_hex").GetString()!),
            root.GetProperty("message_id").GetString(),
            root.GetProperty("headers").EnumerateObject().ToDictionary(p => p.Name, p => p.Value.GetString()!));
    }

    /// <summary>
    /// The message ids the Consumer's handler wrote a line for (it runs with <c>--log-level Debug</c>):
    /// what it handled, one entry per handling. Read from the handler's own output, not the app's counts.
    /// </summary>
    public static IReadOnlyList<string> HandledIds(string stdout) => [.. HandledLine().Matches(stdout).Select(m => m.Groups["id"].Value)];

    /// <summary>Reads <paramref name="queue"/> and its dead-letter queue with pika: both must be empty.</summary>
    public async Task AssertQueuesEmptyAsync(string queue) =>
        Assert.Equal((0, 0), (await CountWithPikaAsync(queue), await CountWithPikaAsync($"{queue}.dead-letter")));

    /// <summary>The messages ready in <paramref name="queue"/>, read by Debian's python3-pika from the queue itself.</summary>
    public Task<int> CountWithPikaAsync(string queue) => Testing.Pika.CountAsync(broker.Split(',')[0], queue);

    /// <summary>Publishes one message to <paramref name="queue"/> with Debian's python3-pika.</summary>
    public Task PublishWithPikaAsync(string queue, byte[] body, string? messageId, params string[] headers) =>
        Pika("publish", [queue, Convert.ToHexString(body), messageId ?? "", .. headers]);

    private Task<string> Pika(string command, params string[] args) => Testing.Pika.RunAsync(broker.Split(',')[0], command, args);

    private static int Number(Regex report, string stdout, string group)
    {
        var match = report.Match(stdout);
        Assert.True(match.Success, $"no report line:\n{stdout}");
        return int.Parse(match.Groups[group].Value, CultureInfo.InvariantCulture);
    }

    [GeneratedRegex(@"Handled and acknowledged (?<acknowledged>\d+) of (?<requested>\d+) messages .*; (?<deadLettered>\d+) dead-lettered, (?<duplicates>\d+) duplicates skipped, (?<reconnects>\d+) reconnects")]
    private static partial Regex Handled();

    [GeneratedRegex(@"DBG\] Handled (?<id>[^:\s]*): ")]
    private static partial Regex HandledLine();

    [GeneratedRegex(@"Handled and acknowledged (?<acknowledged>\d+) messages from .*; (?<deadLettered>\d+) dead-lettered, (?<duplicates>\d+) duplicates skipped, (?<reconnects>\d+) reconnects")]
    private static partial Regex HandledByWorker();

    [GeneratedRegex(@"Published (?<confirmed>\d+) of \d+ messages to .*, each confirmed, .*; (?<republished>\d+) published again after (?<reconnects>\d+) reconnects")]
    private static partial Regex Published();
}

/// <summary>A message as a client not written here read it.</summary>
internal sealed record ForeignMessage(byte[] Body, string? MessageId, Dictionary<string, string> Headers);
