using System.Diagnostics;
using Prewire.Testing;

namespace Prewire.AotSmoke;

/// <summary>
/// The Consumer takes what it is asked for and no more, and a stop (SIGTERM, as a container runtime
/// sends) loses nothing, in either app: in the NativeAOT binaries on each RID, against the real
/// broker. "Nothing lost" is shown by a Consumer taking exactly what should be there (it would wait
/// until its timeout if fewer were). The Consumer under test runs on each client; the one that checks
/// what is left on RabbitMQ.Client.
/// </summary>
public sealed class StopTests(PublishedApps published)
{
    public static TheoryData<string> EachRid => Rids.Each();

    public static TheoryData<string, string> EachWithEachClient => Rids.EachWithEachClient();

    [Theory]
    [MemberData(nameof(EachWithEachClient))]
    public async Task A_count_takes_exactly_that_many_off_a_longer_queue(string rid, string client)
    {
        var (queue, total) = await FillAsync(rid, Rids.Scaled(rid, 1_000));

        Assert.Equal(5, await ConsumeAsync(rid, queue, 5, Rids.ClientArguments(client)));
        Assert.Equal(total - 5, await ConsumeAsync(rid, queue, total - 5));
    }

    [Theory]
    [MemberData(nameof(EachWithEachClient))]
    public async Task SIGTERM_under_load_exits_0_and_what_was_not_acknowledged_stays_queued(string rid, string client)
    {
        var (queue, total) = await FillAsync(rid, Rids.Scaled(rid, 20_000));
        // Four at once: deliveries are being handled when the signal comes; they finish and are acked.
        await using var consume = await Apps(rid).StartAsync(App.Consumer, queue, total, ["--concurrency", "4", .. Rids.ClientArguments(client)]);
        await consume.WaitForReadyAsync(AppRuns.ReadyTimeout(rid));
        // Mid-stream: natively after 200 ms of consuming; under qemu at once (it still drains thousands a second).
        if (!Qemu.Emulates(rid)) await Task.Delay(200, TestContext.Current.CancellationToken);
        var stopping = Stopwatch.StartNew();
        consume.Terminate();
        Assert.Equal(0, await consume.WaitForExitAsync(AppRuns.ExitTimeout(rid)));
        // The 5 s is the app's promise; under qemu time means nothing.
        if (!Qemu.Emulates(rid)) Assert.InRange(stopping.Elapsed, TimeSpan.Zero, TimeSpan.FromSeconds(5));

        var acknowledged = BrokerApps.Acknowledged(consume.Stdout, total);
        Assert.Contains("stopped by a signal", consume.Stdout, StringComparison.Ordinal);
        Assert.InRange(acknowledged, 0, total - 1);
        Assert.Equal(total - acknowledged, await ConsumeAsync(rid, queue, total - acknowledged));
    }

    [Theory]
    [MemberData(nameof(EachRid))]
    public async Task SIGTERM_stops_the_publisher_between_messages_and_every_confirmed_one_is_queued(string rid)
    {
        var queue = $"aotsmoke.stop.{rid}.{Guid.NewGuid():N}";
        var total = 1_000_000;
        await using var publish = await Apps(rid).StartAsync(App.Publisher, queue, total);
        await publish.WaitForReadyAsync(AppRuns.ReadyTimeout(rid));
        await Task.Delay(Qemu.Emulates(rid) ? 1_000 : 300, TestContext.Current.CancellationToken);
        var stopping = Stopwatch.StartNew();
        publish.Terminate();
        Assert.Equal(0, await publish.WaitForExitAsync(AppRuns.ExitTimeout(rid)));
        if (!Qemu.Emulates(rid)) Assert.InRange(stopping.Elapsed, TimeSpan.Zero, TimeSpan.FromSeconds(5));

        Assert.Contains("stopped by a signal", publish.Stdout, StringComparison.Ordinal);
        var confirmed = BrokerApps.Confirmed(publish.Stdout);
        Assert.InRange(confirmed, 1, total - 1);
        // At least what was reported confirmed is in the queue (the one in flight at the stop may be too).
        Assert.Equal(confirmed, await ConsumeAsync(rid, queue, confirmed));
    }

    private async Task<(string Queue, int Total)> FillAsync(string rid, int total)
    {
        var queue = $"aotsmoke.stop.{rid}.{Guid.NewGuid():N}";
        await Apps(rid).PublishAsync(queue, total);
        return (queue, total);
    }

    private async Task<int> ConsumeAsync(string rid, string queue, int count, params string[] args) =>
        BrokerApps.Acknowledged(await Apps(rid).ConsumeAsync(queue, count, args), count);

    private BrokerApps Apps(string rid) => new(published, rid, TestBroker.Uri.ToString());
}
