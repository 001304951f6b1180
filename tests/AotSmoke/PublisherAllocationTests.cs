using System.Globalization;
using System.Text.RegularExpressions;
using Prewire.Harness;

namespace Prewire.AotSmoke;

/// <summary>AmqpPublisher's steady state under NativeAOT, against the real broker: 0 bytes per confirmed publish, one publisher or 16 at once.</summary>
public sealed partial class PublisherAllocationTests
{
    private static readonly App Fixture = new("AllocationFixture", "tests/AotSmoke/Fixtures/AllocationFixture", IsWeb: false);

    [Fact]
    public async Task A_confirmed_publish_allocates_zero_bytes_in_the_NativeAOT_binary()
    {
        var broker = Repo.BrokerUri();
        Assert.True(broker is not null, "no broker: run the tests through ./build.sh test, which starts one");
        var ct = TestContext.Current.CancellationToken;
        var published = await Publishing.PublishProjectAsync(Fixture, Path.Combine(Repo.Root, Fixture.ProjectDirectory), Repo.HostRid, PublishMode.Aot, [],
            Path.Combine(Repo.Artifacts, "allocation-fixture"), ct);
        Assert.True(published.Succeeded, $"publish failed ({published.ExitCode}):\n{published.Errors}");

        await using var run = AppProcess.Start(published.ExecutablePath, [broker]);
        Assert.Equal(0, await run.WaitForExitAsync(TimeSpan.FromMinutes(3)));

        var lines = Result().Matches(run.Stdout);
        Assert.Equal(3, lines.Count);
        foreach (Match line in lines)
        {
            var (shortWindow, longWindow) = (long.Parse(line.Groups["short"].Value, CultureInfo.InvariantCulture), long.Parse(line.Groups["long"].Value, CultureInfo.InvariantCulture));
            Assert.True(longWindow - shortWindow <= long.Parse(line.Groups["tolerance"].Value, CultureInfo.InvariantCulture),
                $"{line.Groups["size"].Value} B bodies, {line.Groups["publishers"].Value} publishers: 4,000 more confirmed publishes allocated {longWindow - shortWindow} bytes ({shortWindow} B for 1,000, {longWindow} B for 5,000)");
        }
    }

    [GeneratedRegex(@"^bodySize=(?<size>\d+) publishers=(?<publishers>\d+) short=(?<short>\d+) long=(?<long>\d+) tolerance=(?<tolerance>\d+)$", RegexOptions.Multiline)]
    private static partial Regex Result();
}
