using System.Diagnostics;
using System.Globalization;
using System.Text.RegularExpressions;
using Prewire.Harness;

namespace Prewire.AotSmoke;

/// <summary>
/// The Consumer takes what it is asked for and no more, and a stop (SIGTERM, as a container runtime
/// sends) loses nothing, in either app: in the NativeAOT binaries on each RID, against the real
/// broker. "Nothing lost" is shown by a Consumer taking exactly what should be there (it would wait
/// until its timeout if fewer were).
/// </summary>
public sealed partial class StopTests(PublishedApps published)
{
    public static TheoryData<string> EachRid => Rids.Each();

    [Theory]
    [MemberData(nameof(EachRid))]
    public async Task A_count_takes_exactly_that_many_off_a_longer_queue(string rid)
    {
        var (queue, total) = await FillAsync(rid, Rids.Scaled(rid, 1_000));

        Assert.Equal(5, await ConsumeAsync(rid, queue, 5));
        Assert.Equal(total - 5, await ConsumeAsync(rid, queue, total - 5));
    }

    [Theory]
    [MemberData(nameof(EachRid))]
    public async Task SIGTERM_under_load_exits_0_and_what_was_not_acknowledged_stays_queued(string rid)
    {
        var (queue, total) = await FillAsync(rid, Rids.Scaled(rid, 20_000));
        var consumer = await published.GetSucceededAsync(App.Consumer, rid);

        await using var consume = AppProcess.Start(consumer.ExecutablePath, ["--uri", TestBroker.Uri.ToString(), "--queue", queue, "--count", $"{total}"], rid: rid);
        await consume.WaitForReadyAsync(AppRuns.ReadyTimeout(rid));
        // Mid-stream: natively after 200 ms of consuming; under qemu at once (it still drains thousands a second).
        if (!Qemu.Emulates(rid)) await Task.Delay(200, TestContext.Current.CancellationToken);
        var stopping = Stopwatch.StartNew();
        consume.Terminate();
        Assert.Equal(0, await consume.WaitForExitAsync(AppRuns.ExitTimeout(rid)));
        // The 5 s is the app's promise; under qemu time means nothing.
        if (!Qemu.Emulates(rid)) Assert.InRange(stopping.Elapsed, TimeSpan.Zero, TimeSpan.FromSeconds(5));

        var acknowledged = Acknowledged(consume.Stdout, total);
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
        var publisher = await published.GetSucceededAsync(App.Publisher, rid);
        await using var publish = AppProcess.Start(publisher.ExecutablePath, ["--uri", TestBroker.Uri.ToString(), "--queue", queue, "--count", $"{total}", "--amqp-publisher"], rid: rid);
        await publish.WaitForReadyAsync(AppRuns.ReadyTimeout(rid));
        await Task.Delay(Qemu.Emulates(rid) ? 1_000 : 300, TestContext.Current.CancellationToken);
        var stopping = Stopwatch.StartNew();
        publish.Terminate();
        Assert.Equal(0, await publish.WaitForExitAsync(AppRuns.ExitTimeout(rid)));
        if (!Qemu.Emulates(rid)) Assert.InRange(stopping.Elapsed, TimeSpan.Zero, TimeSpan.FromSeconds(5));

        var match = Published().Match(publish.Stdout);
        Assert.True(match.Success, $"no report line:\n{publish.Stdout}\n{publish.Stderr}");
        Assert.Contains("stopped by a signal", publish.Stdout, StringComparison.Ordinal);
        var confirmed = int.Parse(match.Groups["confirmed"].Value, CultureInfo.InvariantCulture);
        Assert.InRange(confirmed, 1, total - 1);
        // At least what was reported confirmed is in the queue (the one in flight at the stop may be too).
        Assert.Equal(confirmed, await ConsumeAsync(rid, queue, confirmed));
    }

    private async Task<(string Queue, int Total)> FillAsync(string rid, int total)
    {
        var queue = $"aotsmoke.stop.{rid}.{Guid.NewGuid():N}";
        var publisher = await published.GetSucceededAsync(App.Publisher, rid);
        await using var publish = AppProcess.Start(publisher.ExecutablePath, ["--uri", TestBroker.Uri.ToString(), "--queue", queue, "--count", $"{total}", "--amqp-publisher"], rid: rid);
        Assert.Equal(0, await publish.WaitForExitAsync(TimeSpan.FromMinutes(3)));
        return (queue, total);
    }

    private async Task<int> ConsumeAsync(string rid, string queue, int count)
    {
        var consumer = await published.GetSucceededAsync(App.Consumer, rid);
        await using var consume = AppProcess.Start(consumer.ExecutablePath, ["--uri", TestBroker.Uri.ToString(), "--queue", queue, "--count", $"{count}"], rid: rid);
        Assert.Equal(0, await consume.WaitForExitAsync(TimeSpan.FromMinutes(3)));
        Assert.Equal("", consume.Stderr);
        return Acknowledged(consume.Stdout, count);
    }

    private static int Acknowledged(string stdout, int requested)
    {
        var match = Report().Match(stdout);
        Assert.True(match.Success, $"no report line:\n{stdout}");
        Assert.Equal(requested, int.Parse(match.Groups["requested"].Value, CultureInfo.InvariantCulture));
        return int.Parse(match.Groups["acknowledged"].Value, CultureInfo.InvariantCulture);
    }

    [GeneratedRegex(@"Handled and acknowledged (?<acknowledged>\d+) of (?<requested>\d+) messages")]
    private static partial Regex Report();

    [GeneratedRegex(@"Published (?<confirmed>\d+) of \d+ messages to \S+, each confirmed")]
    private static partial Regex Published();
}
