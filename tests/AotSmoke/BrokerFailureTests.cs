using System.Globalization;
using System.Text.RegularExpressions;
using Prewire.Testing;

namespace Prewire.AotSmoke;

/// <summary>A node of their own for the tests that stop, restart and kill it; the class's tests take turns on it.</summary>
public sealed class OwnBroker : IAsyncLifetime
{
    public BrokerNode Node { get; private set; } = null!;

    public ValueTask InitializeAsync()
    {
        Node = BrokerNode.StartOwn(Path.Combine(Repo.Artifacts, "test-broker", $"own-{Guid.NewGuid():N}"));
        return default;
    }

    public ValueTask DisposeAsync() => Node.DisposeAsync();
}

/// <summary>
/// The broker goes away while the NativeAOT apps run: restarted (<c>rabbitmqctl stop_app</c> /
/// <c>start_app</c>), both reconnect and every message confirmed is consumed; killed (SIGKILL) and
/// not back, the Publisher fails within 30 s saying how many were confirmed, and those are all there
/// once the node is back.
/// </summary>
public sealed partial class BrokerFailureTests(PublishedApps published, OwnBroker broker) : IClassFixture<OwnBroker>
{
    public static TheoryData<string, string> EachWithEachClient => Rids.EachWithEachClient();

    public static TheoryData<string> EachClient => [.. Rids.Clients];

    [Theory]
    [MemberData(nameof(EachWithEachClient))]
    public Task A_broker_restart_mid_run_is_ridden_out_by_both_apps_and_every_confirmed_message_is_consumed(string rid, string client) =>
        RestartMidRunAsync(Apps(rid), rid, client);

    [Theory]
    [MemberData(nameof(EachClient))]
    public Task Over_amqps_a_broker_restart_mid_run_is_ridden_out_too(string client) =>
        RestartMidRunAsync(BrokerApps.OverTls(published, Repo.HostRid, broker.Node), Repo.HostRid, client);

    private async Task RestartMidRunAsync(BrokerApps apps, string rid, string client)
    {
        // At most 2,000 messages a second (500 under qemu): 10 s of publishing, the node stopped after 1 s of it.
        var (queue, count) = ($"aotsmoke.restart.{rid}.{Guid.NewGuid():N}", Rids.Scaled(rid, 20_000));
        // Both apps on the client under test: RabbitMQ.Client, or Prewire's own both ways.
        await using var consume = await apps.StartAsync(App.Consumer, queue, count, ["--log-level", "Debug", .. Rids.ClientArguments(client)]);
        await consume.WaitForReadyAsync(AppRuns.ReadyTimeout(rid));
        await using var publish = await apps.StartAsync(App.Publisher, queue, count, ["--concurrency", "8", "--rate", $"{Rids.Scaled(rid, 2_000)}", .. Rids.ClientArguments(client)]);
        await publish.WaitForReadyAsync(AppRuns.ReadyTimeout(rid));

        await Task.Delay(1_000, TestContext.Current.CancellationToken);
        // rabbitmqctl boots a VM of its own before it stops anything: 9 s once beside a publish loop and
        // qemu, when the Publisher had sent its last message first. Paused meanwhile, the Publisher is
        // always mid-run when the node goes, and resumes with the node down to find its connection gone.
        await publish.PausedDuringAsync(() => broker.Node.CtlAsync("stop_app"));
        await Task.Delay(1_000, TestContext.Current.CancellationToken);
        await broker.Node.CtlAsync("start_app");

        await BrokerApps.AssertExitsAsync(publish, 0, TimeSpan.FromMinutes(3));
        await BrokerApps.AssertExitsAsync(consume, 0, TimeSpan.FromMinutes(3));
        // Every message confirmed, some perhaps twice (republished after the loss: at least once)...
        Assert.Equal(count, BrokerApps.Confirmed(publish.Stdout));
        Assert.True(BrokerApps.PublisherReported(publish.Stdout, "reconnects") >= 1, publish.Stdout);
        // ...and the Consumer handled as many distinct ids, skipping the copies, across its own reconnection.
        Assert.Equal(count, BrokerApps.Acknowledged(consume.Stdout, count));
        Assert.True(BrokerApps.ConsumerReported(consume.Stdout, "reconnects") >= 1, consume.Stdout);
        Assert.Equal("", consume.Stderr);
        // Read back, not taken from the apps' counts: the handler wrote a line for count distinct ids,
        // and pika finds the queue and its dead-letter queue empty.
        Assert.Equal(count, BrokerApps.HandledIds(consume.Stdout).Distinct().Count());
        await apps.AssertQueuesEmptyAsync(queue);
    }

    [Theory]
    [MemberData(nameof(EachWithEachClient))]
    public async Task Deleting_the_queue_under_a_consuming_Consumer_ends_it_with_one_line_and_exit_1(string rid, string client)
    {
        var (apps, queue) = (Apps(rid), $"aotsmoke.deleted.{rid}.{Guid.NewGuid():N}");
        await using var consume = await apps.StartAsync(App.Consumer, queue, 10, Rids.ClientArguments(client));
        await consume.WaitForReadyAsync(AppRuns.ReadyTimeout(rid));
        await apps.PublishAsync(queue, 3, Rids.ClientArguments(client));
        await Task.Delay(500, TestContext.Current.CancellationToken);

        await Pika.RunAsync(apps.Broker, "delete", queue);

        await BrokerApps.AssertExitsAsync(consume, 1, TimeSpan.FromSeconds(30));
        var line = Assert.Single(consume.Stderr.Split('\n', StringSplitOptions.RemoveEmptyEntries));
        Assert.Contains("stopped after 3 of 10 messages", line, StringComparison.Ordinal);
        Assert.Contains("cancelled the consumer", line, StringComparison.Ordinal);
    }

    [Fact]
    public async Task A_killed_broker_that_stays_down_fails_the_publisher_within_30_s_and_what_it_reported_confirmed_is_all_there()
    {
        const string rid = "linux-x64";
        var (apps, queue, count) = (Apps(rid), $"aotsmoke.kill.{Guid.NewGuid():N}", 1_000_000);
        // RabbitMQ 3.10 does not bring back a quorum queue whose node crashed within a moment of declaring
        // it (its Raft member was not registered yet): declare it, give it that moment.
        await apps.ConsumeAsync(queue, 0);
        await Task.Delay(3_000, TestContext.Current.CancellationToken);

        await using var publish = await apps.StartAsync(App.Publisher, queue, count, "--concurrency", "8");
        await publish.WaitForReadyAsync(AppRuns.ReadyTimeout(rid));
        await Task.Delay(1_000, TestContext.Current.CancellationToken);
        var killed = System.Diagnostics.Stopwatch.StartNew();
        await broker.Node.KillAsync();
        try
        {
            Assert.Equal(1, await publish.WaitForExitAsync(TimeSpan.FromSeconds(40)));
            Assert.InRange(killed.Elapsed, TimeSpan.Zero, TimeSpan.FromSeconds(30));
        }
        finally
        {
            await broker.Node.ReviveAsync();
        }

        var failure = NotConfirmed().Match(publish.Stderr);
        Assert.True(failure.Success, publish.Stderr);
        Assert.Single(publish.Stderr.Trim().Split('\n'));
        Assert.Contains("could not reconnect to RabbitMQ", publish.Stderr, StringComparison.Ordinal);
        var confirmed = int.Parse(failure.Groups["confirmed"].Value, CultureInfo.InvariantCulture);
        Assert.InRange(confirmed, 1, count - 1);
        // All confirmed ones are there (those in flight at the kill may be too): the Consumer gets as many,
        // and pika drains the rest. Counted by distinct id, from the handler's lines and pika's reads.
        var consumed = await apps.ConsumeAsync(queue, confirmed, "--log-level", "Debug");
        Assert.Equal(confirmed, BrokerApps.Acknowledged(consumed, confirmed));
        var ids = BrokerApps.HandledIds(consumed).ToHashSet();
        while (await apps.GetWithPikaAsync(queue) is { } extra) ids.Add(extra.MessageId!);
        Assert.InRange(ids.Count, confirmed, confirmed + 8);
        await apps.AssertQueuesEmptyAsync(queue);
    }

    private BrokerApps Apps(string rid) => new(published, rid, broker.Node.Uri.ToString());

    [GeneratedRegex(@"^error: \d+ of \d+ messages not confirmed \((?<confirmed>\d+) were\): ")]
    private static partial Regex NotConfirmed();
}
