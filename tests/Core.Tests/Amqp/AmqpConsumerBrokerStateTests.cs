namespace Prewire.Amqp;

/// <summary>The consumer's allocations, measured process-wide: alone, after everything else.</summary>
[Collection(nameof(BrokerStateTests))]
public sealed class AmqpConsumerBrokerStateTests
{
    [Theory]
    [InlineData(256, 1, false)]
    [InlineData(256, 8, false)]
    [InlineData(300_000, 1, false)]
    [InlineData(256, 1, true)]
    public async Task A_consumed_and_acknowledged_message_allocates_zero_bytes_in_steady_state(int bodySize, int concurrency, bool tls)
    {
        var ct = TestContext.Current.CancellationToken;
        await using var publishing = await AmqpConnection.ConnectAsync(AmqpConsumerTests.Options(tls), ct);
        await using var consuming = await AmqpConnection.ConnectAsync(AmqpConsumerTests.Options(tls), ct);
        var queue = await AmqpConsumerTests.NewQueueAsync(publishing);
        await using var publisher = await AmqpPublisher.OpenAsync(publishing, cancellationToken: ct);
        var measure = new ConsumeAllocations(publisher, queue);
        await using var consumer = await AmqpConsumer.StartAsync(consuming, new AmqpConsumerOptions { Queue = queue, Prefetch = 100, Concurrency = concurrency }, measure.Handle, ct);

        var (shortWindow, longWindow) = await measure.MeasureAsync(bodySize);

        Assert.True(longWindow <= shortWindow, $"4,000 more messages published, consumed and acked allocated {longWindow - shortWindow} bytes ({shortWindow} B for 1,000, {longWindow} B for 5,000)");
        // The last handler's count ends the window before the consumer acknowledges its delivery (a CI run
        // read 27,999 of 28,000 settled): the stop drains what is in flight first.
        await consumer.StopAsync(TimeSpan.FromSeconds(5), ct);
        Assert.Equal(consumer.Delivered, consumer.Settled);
    }
}
