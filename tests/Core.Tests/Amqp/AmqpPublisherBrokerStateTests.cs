using RabbitMQ.Client;

namespace Prewire.Amqp;

[CollectionDefinition(nameof(BrokerStateTests), DisableParallelization = true)]
public sealed class BrokerStateTests;

/// <summary>
/// Tests that change the broker itself (alarms, stopping it) or measure allocations process-wide:
/// they run alone, after everything else.
/// </summary>
[Collection(nameof(BrokerStateTests))]
public sealed class AmqpPublisherBrokerStateTests
{
    private static AmqpPublisherOptions Options() => new() { Uri = AmqpUri.Parse(TestBroker.Uri.OriginalString), ClientName = "prewire-tests" };

    [Fact]
    public async Task While_the_broker_blocks_publishing_publishes_wait_then_proceed()
    {
        var ct = TestContext.Current.CancellationToken;
        await using var publisher = await AmqpPublisher.ConnectAsync(Options(), ct);
        await publisher.PublishAsync("amq.fanout", "", null, new byte[10], cancellationToken: ct);
        try
        {
            await TestBroker.CtlAsync("set_vm_memory_high_watermark", "0");
            var publishing = publisher.PublishAsync("amq.fanout", "", null, new byte[10], cancellationToken: ct).AsTask();

            await Task.Delay(TimeSpan.FromSeconds(2), ct);
            Assert.True(publisher.IsBlocked, "the broker's connection.blocked was not seen");
            Assert.False(publishing.IsCompleted, "a publish completed while the broker blocked publishing");

            await TestBroker.CtlAsync("set_vm_memory_high_watermark", "0.4");
            await publishing.WaitAsync(TimeSpan.FromSeconds(15), ct);
            Assert.False(publisher.IsBlocked);
        }
        finally
        {
            await TestBroker.CtlAsync("set_vm_memory_high_watermark", "0.4");
        }
    }

    [Fact]
    public async Task When_the_broker_stops_mid_run_every_unconfirmed_publish_fails_and_every_confirmed_one_was_kept()
    {
        var ct = TestContext.Current.CancellationToken;
        var queue = $"test.durable.{Guid.NewGuid():N}";
        await using (var official = await OfficialClient.ConnectAsync())
        await using (var channel = await official.CreateChannelAsync(cancellationToken: ct))
            await channel.QueueDeclareAsync(queue, durable: true, exclusive: false, autoDelete: false, cancellationToken: ct);

        var publisher = await AmqpPublisher.ConnectAsync(Options(), ct);
        var persistent = new BasicProperties { DeliveryMode = 2 };
        var confirmed = 0;
        var failed = 0;
        var publishing = Enumerable.Range(0, 8).Select(_ => Task.Run(async () =>
        {
            for (var i = 0; i < 2000; i++)
            {
                try
                {
                    await publisher.PublishAsync("", queue, persistent, new byte[1000], cancellationToken: ct);
                    Interlocked.Increment(ref confirmed);
                }
                catch (Exception e) when (e is AmqpException or IOException or ObjectDisposedException)
                {
                    Interlocked.Increment(ref failed);
                }
            }
        }, ct)).ToArray();

        await Task.Delay(TimeSpan.FromMilliseconds(500), ct);
        try
        {
            await TestBroker.CtlAsync("stop_app");
            await Task.WhenAll(publishing).WaitAsync(TimeSpan.FromSeconds(30), ct);
        }
        finally
        {
            await TestBroker.CtlAsync("start_app");
            await publisher.DisposeAsync();
        }

        Assert.Equal(8 * 2000, confirmed + failed);
        Assert.True(confirmed > 0 && failed > 0, $"the stop did not land mid-run: {confirmed} confirmed, {failed} failed");
        await using var after = await OfficialClient.ConnectAsync();
        await using var check = await after.CreateChannelAsync(cancellationToken: ct);
        var kept = await check.MessageCountAsync(queue, ct);
        Assert.True(kept >= (uint)confirmed, $"{confirmed} publishes were reported confirmed but the durable queue holds {kept}");
        await check.QueueDeleteAsync(queue, cancellationToken: ct);
    }

    [Theory]
    [InlineData(false, 4096, 1)]
    [InlineData(true, 4096, 1)]
    [InlineData(false, 300_000, 1)]
    [InlineData(false, 256, 16)]
    public Task A_confirmed_publish_allocates_zero_bytes_in_steady_state(bool inline, int bodySize, int publishers)
    {
        var options = Options();
        options.Transport.UnsafePreferInlineScheduling = inline;
        options.Channels = publishers;
        return AssertZeroBytesAsync(options, bodySize, publishers);
    }

    // Without confirms a publish completes when its frames are written or, for a body over the flush
    // threshold, when the send loop has sent it: that await is the one a confirmed publish never makes.
    [Theory]
    [InlineData(4096)]
    [InlineData(300_000)]
    public Task An_unconfirmed_publish_allocates_zero_bytes_in_steady_state(int bodySize)
    {
        var options = Options();
        options.Confirms = false;
        return AssertZeroBytesAsync(options, bodySize, publishers: 1);
    }

    // A body over the flush threshold goes through the TLS stream a part at a time, from the caller's memory.
    [Fact]
    public Task A_confirmed_publish_over_amqps_allocates_zero_bytes_in_steady_state() =>
        AssertZeroBytesAsync(AmqpConsumerTests.OverTls(Options()), bodySize: 300_000, publishers: 1);

    private static async Task AssertZeroBytesAsync(AmqpPublisherOptions options, int bodySize, int publishers)
    {
        var ct = TestContext.Current.CancellationToken;
        await using var publisher = await AmqpPublisher.ConnectAsync(options, ct);

        Assert.False(IsDebugBuild(), "allocation tests measure optimized code: run them in Release (./build.sh test does)");
        var (shortWindow, longWindow) = await PublishAllocations.MeasureAsync(publisher, bodySize, publishers);

        var what = options.Confirms ? "confirmed" : "unconfirmed";
        Assert.True(longWindow - shortWindow <= PublishAllocations.Allowance(publishers), $"4,000 more {what} publishes allocated {longWindow - shortWindow} bytes ({shortWindow} B for 1,000, {longWindow} B for 5,000)");
    }

    // Debug builds compile async state machines as classes, one allocation per call.
    private static bool IsDebugBuild() =>
        typeof(AmqpPublisher).Assembly.GetCustomAttributes(typeof(System.Diagnostics.DebuggableAttribute), false)
            .OfType<System.Diagnostics.DebuggableAttribute>().Any(d => d.IsJITOptimizerDisabled);
}
