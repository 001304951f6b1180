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
    /// Warms up, then measures two windows of 1,000 and 5,000 publishes over <paramref name="publishers"/>
    /// concurrent loops (a body over 256 KiB goes out a flush at a time, waiting in between). The
    /// measurement's own cost is the same in both, so their difference is what 4,000 more publishes
    /// allocated. Each window is the least of three runs: other threads (a test runner, a new
    /// thread-pool thread) can only add bytes, while a real per-publish allocation is in every run.
    /// </summary>
    public static async Task<(long ShortWindow, long LongWindow)> MeasureAsync(AmqpPublisher publisher, int bodySize, int publishers = 1)
    {
        var properties = new BasicProperties { ContentType = "application/octet-stream", DeliveryMode = 2, MessageId = "fixed" };
        var body = new byte[bodySize];
        var loops = new Task[publishers];
        for (var round = 0; round < 5; round++) await WindowAsync(publisher, properties, body, loops, 2_000);
        var shortWindow = long.MaxValue;
        var longWindow = long.MaxValue;
        for (var run = 0; run < 3; run++)
        {
            shortWindow = Math.Min(shortWindow, await WindowAsync(publisher, properties, body, loops, 1_000));
            longWindow = Math.Min(longWindow, await WindowAsync(publisher, properties, body, loops, 5_000));
        }
        return (shortWindow, longWindow);
    }

    /// <summary>
    /// What the long window may exceed the short one by: nothing for one publisher. With several, each
    /// window starts its loops afresh on whichever pool threads are free, and the first publish on a
    /// thread whose state machine cache is empty allocates one (~200 B), a start or two more in one
    /// window than the other. A per-publish allocation over 4,000 publishes is at least 96,000 B.
    /// </summary>
    public static long Tolerance(int publishers) => publishers == 1 ? 0 : 1024;

    private static async Task<long> WindowAsync(AmqpPublisher publisher, BasicProperties properties, byte[] body, Task[] loops, int count)
    {
        var before = GC.GetTotalAllocatedBytes(precise: true);
        for (var i = 0; i < loops.Length; i++) loops[i] = PublishLoopAsync(publisher, properties, body, count / loops.Length).AsTask();
        await Task.WhenAll(loops).ConfigureAwait(false);
        return GC.GetTotalAllocatedBytes(precise: true) - before;
    }

    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder))]
    private static async ValueTask PublishLoopAsync(AmqpPublisher publisher, BasicProperties properties, byte[] body, int count)
    {
        await Task.Yield();
        for (var i = 0; i < count; i++) await publisher.PublishAsync("amq.fanout", "", properties, body).ConfigureAwait(false);
    }
}
