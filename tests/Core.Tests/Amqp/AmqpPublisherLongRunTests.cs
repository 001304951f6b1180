namespace Prewire.Amqp;

/// <summary>
/// The real publish path (socket, read loop, confirms from the broker) over a long steady run: what the
/// short windows of <c>A_confirmed_publish_allocates_zero_bytes_in_steady_state</c> cannot see.
/// </summary>
[Collection(nameof(BrokerStateTests))]
public sealed class AmqpPublisherLongRunTests
{
    // 64 B kept once every 5,000 publishes is 8 arrays of 88 B a window: 704 B in the least window. An
    // unchanged publisher's least is 0 B idle; with two busy loops on this 2-core machine one run in two
    // had 32 B in every window (a thread-pool thread started, its state): under the bound, as a leak is not.
    private const long Slack = 256;

    [Fact]
    public async Task Every_window_of_a_long_run_of_confirmed_publishes_allocates_nothing()
    {
        await using var publisher = await ConnectAsync();

        var least = await PublishAllocations.LongRunAsync(publisher);

        Assert.True(least <= Slack, $"each of {PublishAllocations.LongRunWindows} windows of {PublishAllocations.LongRunWindow:N0} confirmed publishes allocated {least:N0} B or more");
    }

    [Fact]
    public async Task A_publish_path_that_keeps_64_bytes_once_every_5000_publishes_fails_the_check()
    {
        await using var publisher = await ConnectAsync();
        var kept = new List<byte[]>();

        var least = await PublishAllocations.LongRunAsync(publisher, i =>
        {
            if (i % 5_000 == 4_999) kept.Add(new byte[64]);
        });

        Assert.True(least > Slack, $"the least window allocated {least:N0} B with 64 B kept once every 5,000 publishes: the check would not see such a leak");
        GC.KeepAlive(kept);
    }

    private static Task<AmqpPublisher> ConnectAsync() =>
        AmqpPublisher.ConnectAsync(new AmqpPublisherOptions { Uri = AmqpUri.Parse(TestBroker.Uri.OriginalString), ClientName = "prewire-tests" }, TestContext.Current.CancellationToken);
}
