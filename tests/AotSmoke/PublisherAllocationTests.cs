using System.Globalization;
using System.Text.RegularExpressions;
using Prewire.Testing;

namespace Prewire.AotSmoke;

/// <summary>
/// AmqpPublisher's and AmqpConsumer's steady state under NativeAOT on each RID, against the real broker:
/// 0 bytes per confirmed publish (one publisher or 16 at once) and per message consumed and acked
/// (handled one at a time or 8 at once, a body in one frame or in three).
/// </summary>
public sealed partial class PublisherAllocationTests
{
    private static readonly App _fixture = new("AllocationFixture", "tests/AotSmoke/Fixtures/AllocationFixture", IsWeb: false);

    public static TheoryData<string> EachRid => Rids.Each();

    [Theory]
    [MemberData(nameof(EachRid))]
    public async Task Confirmed_publishes_and_consumed_deliveries_allocate_zero_bytes_in_the_NativeAOT_binary(string rid)
    {
        var ct = TestContext.Current.CancellationToken;
        var published = await Publishing.PublishProjectAsync(_fixture, Path.Combine(Repo.Root, _fixture.ProjectDirectory), rid, PublishMode.Aot, [],
            Path.Combine(Repo.Artifacts, "allocation-fixture", rid), variant: "allocation-fixture", cancellationToken: ct);
        Assert.True(published.Succeeded, $"publish failed ({published.ExitCode}):\n{published.Errors}");

        // Under qemu a window is a fifth the size: the same measurement, fewer publishes.
        var scale = Qemu.Emulates(rid) ? 5 : 1;
        await using var run = AppProcess.Start(published.ExecutablePath, [TestBroker.Uri.ToString(), $"{scale}"], rid: rid);
        Assert.Equal(0, await run.WaitForExitAsync(TimeSpan.FromMinutes(8)));

        var lines = Result().Matches(run.Stdout);
        Assert.True(lines.Count == 3, $"expected 3 result lines:\n{run.Stdout}\n{run.Stderr}");
        foreach (Match line in lines)
        {
            var (shortWindow, longWindow) = (long.Parse(line.Groups["short"].Value, CultureInfo.InvariantCulture), long.Parse(line.Groups["long"].Value, CultureInfo.InvariantCulture));
            Assert.True(longWindow - shortWindow <= long.Parse(line.Groups["allowance"].Value, CultureInfo.InvariantCulture),
                $"{line.Groups["size"].Value} B bodies, {line.Groups["publishers"].Value} publishers: {line.Groups["more"].Value} more confirmed publishes allocated {longWindow - shortWindow} bytes ({shortWindow} B short window, {longWindow} B long window)");
        }

        var consumed = Consumed().Matches(run.Stdout);
        Assert.True(consumed.Count == 3, $"expected 3 consume lines:\n{run.Stdout}\n{run.Stderr}");
        foreach (Match line in consumed)
        {
            var (shortWindow, longWindow) = (long.Parse(line.Groups["short"].Value, CultureInfo.InvariantCulture), long.Parse(line.Groups["long"].Value, CultureInfo.InvariantCulture));
            Assert.True(longWindow <= shortWindow,
                $"{line.Groups["size"].Value} B bodies, {line.Groups["concurrency"].Value} at once: {line.Groups["more"].Value} more messages published, consumed and acked allocated {longWindow - shortWindow} bytes ({shortWindow} B short window, {longWindow} B long window)");
        }
    }

    [GeneratedRegex(@"^consume bodySize=(?<size>\d+) concurrency=(?<concurrency>\d+) more=(?<more>\d+) short=(?<short>\d+) long=(?<long>\d+)$", RegexOptions.Multiline)]
    private static partial Regex Consumed();

    [GeneratedRegex(@"^bodySize=(?<size>\d+) publishers=(?<publishers>\d+) more=(?<more>\d+) short=(?<short>\d+) long=(?<long>\d+) allowance=(?<allowance>\d+)$", RegexOptions.Multiline)]
    private static partial Regex Result();
}
