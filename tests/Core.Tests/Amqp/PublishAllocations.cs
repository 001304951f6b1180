using System.Runtime.CompilerServices;
using Prewire.Framing;

namespace Prewire.Amqp;

/// <summary>
/// What confirmed publishes allocate in steady state, process-wide (caller, read loop, socket).
/// Shared by the JIT test (<c>AmqpPublisherBrokerStateTests</c>) and the NativeAOT fixture
/// (tests/AotSmoke/Fixtures/AllocationFixture), which links this file.
/// </summary>
internal static class PublishAllocations
{
    /// <summary>
    /// Warms up, then measures two windows of 1,000 and 5,000 publishes, one at a time (a body over
    /// 256 KiB goes out a flush at a time, waiting in between). The measurement's own cost is the same
    /// in both, so their difference is what 4,000 more publishes allocated. Each window is the least of
    /// three runs: other threads (a test runner, a new thread-pool thread) can only add bytes, while a
    /// real per-publish allocation is in every run.
    /// </summary>
    public static async Task<(long ShortWindow, long LongWindow)> MeasureAsync(AmqpPublisher publisher, int bodySize)
    {
        var properties = new BasicProperties { ContentType = "application/octet-stream", DeliveryMode = 2, MessageId = "fixed" };
        var body = new byte[bodySize];
        for (var round = 0; round < 5; round++) await WindowAsync(publisher, properties, body, 2_000);
        var shortWindow = long.MaxValue;
        var longWindow = long.MaxValue;
        for (var run = 0; run < 3; run++)
        {
            shortWindow = Math.Min(shortWindow, await WindowAsync(publisher, properties, body, 1_000));
            longWindow = Math.Min(longWindow, await WindowAsync(publisher, properties, body, 5_000));
        }
        return (shortWindow, longWindow);
    }

    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder<>))]
    private static async ValueTask<long> WindowAsync(AmqpPublisher publisher, BasicProperties properties, byte[] body, int count)
    {
        var before = GC.GetTotalAllocatedBytes(precise: true);
        for (var i = 0; i < count; i++) await publisher.PublishAsync("amq.fanout", "", properties, body).ConfigureAwait(false);
        return GC.GetTotalAllocatedBytes(precise: true) - before;
    }
}
