using Prewire.Testing;

namespace Prewire.AotSmoke;

/// <summary>
/// The published NativeAOT Publisher and Consumer over a long, steady run against the test broker
/// (<see cref="LongRunApps"/>, <see cref="LongRunCheck.RunMessages"/> messages): neither keeps more as messages
/// pass, nor allocates more than its cheapest interval foretold. A build whose own per-message path keeps
/// 64 B once every 5,000 messages must fail, in both apps.
/// </summary>
public sealed class LongRunTests(PublishedApps published)
{
    public static TheoryData<string> EachRid => Rids.Each();

    [Theory]
    [MemberData(nameof(EachRid))]
    public async Task The_published_Publisher_and_Consumer_keep_and_allocate_nothing_more_over_a_long_run(string rid)
    {
        var (publisher, consumer) = (await published.GetSucceededAsync(App.Publisher, rid), await published.GetSucceededAsync(App.Consumer, rid));

        var checks = await LongRunApps.RunAsync(publisher.ExecutablePath, consumer.ExecutablePath, rid, TestBroker.Uri.ToString());

        Report(checks.Publisher, checks.Consumer);
        Assert.True(checks.Publisher.Passed, checks.Publisher.ToString());
        Assert.True(checks.Consumer.Passed, checks.Consumer.ToString());
    }

    [Fact]
    public async Task A_Publisher_and_a_Consumer_that_keep_64_B_every_5000_messages_fail_it()
    {
        var rid = Repo.HostRid;
        var publisher = await LeakFixture.PublishAsync(App.Publisher, rid, cancellationToken: TestContext.Current.CancellationToken);
        var consumer = await LeakFixture.PublishAsync(App.Consumer, rid, cancellationToken: TestContext.Current.CancellationToken);
        Assert.True(publisher.Succeeded && consumer.Succeeded, publisher.Errors + consumer.Errors);

        var checks = await LongRunApps.RunAsync(publisher.ExecutablePath, consumer.ExecutablePath, rid, TestBroker.Uri.ToString());

        Report(checks.Publisher, checks.Consumer);
        Assert.True(checks.Publisher.HeapGrows, checks.Publisher.ToString());
        Assert.True(checks.Consumer.HeapGrows, checks.Consumer.ToString());
    }

    private static void Report(params LongRunCheck[] checks)
    {
        foreach (var check in checks) TestContext.Current.TestOutputHelper?.WriteLine(check.ToString());
    }
}
