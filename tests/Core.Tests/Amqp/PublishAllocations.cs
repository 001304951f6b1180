using System.Runtime.CompilerServices;
using Prewire.Tasks;

namespace Prewire.Amqp;

/// <summary>
/// What confirmed publishes allocate in steady state, process-wide (caller, read loop, socket).
/// Shared by the JIT test (<c>AmqpPublisherBrokerStateTests</c>) and the NativeAOT fixture
/// (tests/AotSmoke/Fixtures/AllocationFixture), which links this file.
/// </summary>
internal static class PublishAllocations
{
    /// <summary>
    /// Warms up, then measures pairs of windows of <see cref="ShortCount"/> and <see cref="LongCount"/>
    /// publishes over <paramref name="publishers"/> concurrent loops (a body over 256 KiB goes out a
    /// flush at a time, waiting in between). The measurement's own cost is the same in both windows,
    /// so the difference of their least values is what the extra publishes allocated.
    /// </summary>
    /// <remarks>
    /// Least values, over as many pairs as it takes (at least 3, at most <see cref="MaxPairs"/>) for the
    /// long window to come down to the short one: a window can include a one-off that is not a cost of
    /// publishing. Measured on a loaded machine (3 busy loops on 2 cores), about 1 long window in 4
    /// allocated 64 B to 16.7 KB more, with no thread started or ended: the connection's pipes and
    /// block pool growing to a new high-water mark of buffered data (a 16 KiB block, a pipe segment,
    /// the free stack's array), which a slow machine reaches later than a fast one. A per-publish
    /// allocation is in every long window (at least 4,000 B more over 4,000 publishes), so no number
    /// of pairs hides it.
    /// </remarks>
    public static async Task<(long ShortWindow, long LongWindow)> MeasureAsync(AmqpPublisher publisher, int bodySize, int publishers = 1, int scale = 1)
    {
        var (properties, body) = (Properties(), new byte[bodySize]);
        var loops = new Task[publishers];
        for (var round = 0; round < 5; round++) await WindowAsync(publisher, properties, body, loops, 2_000 / scale);
        var shortWindow = long.MaxValue;
        var longWindow = long.MaxValue;
        for (var pair = 0; pair < MaxPairs && (pair < 3 || longWindow - shortWindow > Allowance(publishers)); pair++)
        {
            shortWindow = Math.Min(shortWindow, await WindowAsync(publisher, properties, body, loops, ShortCount / scale));
            longWindow = Math.Min(longWindow, await WindowAsync(publisher, properties, body, loops, LongCount / scale));
        }
        return (shortWindow, longWindow);
    }

    /// <summary>Publishes in the short and the long window (divided by the scale given to <see cref="MeasureAsync"/>).</summary>
    public const int ShortCount = 1_000, LongCount = 5_000;

    /// <summary>
    /// What the long window may exceed the short one by: nothing for one publisher. With several, each
    /// window starts its loops afresh on whichever pool threads are free, and a start on a thread whose
    /// state machine cache is empty allocates one (~200 B) in most windows; a per-publish allocation
    /// over 4,000 publishes is at least 4,000 B.
    /// </summary>
    public static long Allowance(int publishers) => publishers == 1 ? 0 : 1024;

    /// <summary>Window pairs measured at most.</summary>
    public const int MaxPairs = 10;

    /// <summary>Confirmed publishes in each window of <see cref="LongRunAsync"/>; its windows together come to 200,000.</summary>
    public const int LongRunWindow = 40_000, LongRunWindows = 5;

    /// <summary>
    /// What a service publishing for weeks needs: after a warm-up, <see cref="LongRunWindows"/> windows of
    /// <see cref="LongRunWindow"/> confirmed publishes, one after another, each window's process-wide
    /// allocation measured; returns the least. A cost paid once every few thousand publishes (a pool that
    /// drops an item now and then, a collection that grows) is in every window, so it is in the least;
    /// the connection's buffers reaching a new high-water mark happens in some windows, not all.
    /// <paramref name="afterEach"/> runs after each publish (the test's own leak, to show the check sees one).
    /// </summary>
    public static async Task<long> LongRunAsync(AmqpPublisher publisher, Action<int>? afterEach = null)
    {
        var (properties, body) = (Properties(), new byte[256]);
        await PublishLoopAsync(publisher, properties, body, 20_000, afterEach);
        var least = long.MaxValue;
        for (var window = 0; window < LongRunWindows; window++)
        {
            var before = GC.GetTotalAllocatedBytes(precise: true);
            await PublishLoopAsync(publisher, properties, body, LongRunWindow, afterEach);
            least = Math.Min(least, GC.GetTotalAllocatedBytes(precise: true) - before);
        }
        return least;
    }

    private static async Task<long> WindowAsync(AmqpPublisher publisher, BasicProperties properties, byte[] body, Task[] loops, int count)
    {
        var before = GC.GetTotalAllocatedBytes(precise: true);
        for (var i = 0; i < loops.Length; i++) loops[i] = PublishLoopAsync(publisher, properties, body, count / loops.Length).AsTask();
        await Task.WhenAll(loops).ConfigureAwait(false);
        return GC.GetTotalAllocatedBytes(precise: true) - before;
    }

    private static BasicProperties Properties() => new() { ContentType = "application/octet-stream", DeliveryMode = 2, MessageId = "fixed" };

    // Pooled, so the measurement itself allocates nothing once warm (a plain async method's box is 120 B a
    // call); by the library's builder, as the runtime's misses its one box a thread and a core now and then.
    [AsyncMethodBuilder(typeof(PooledValueTaskMethodBuilder))]
    private static async ValueTask PublishLoopAsync(AmqpPublisher publisher, BasicProperties properties, byte[] body, int count, Action<int>? afterEach = null)
    {
        await Task.Yield();
        for (var i = 0; i < count; i++)
        {
            await publisher.PublishAsync("amq.fanout", "", properties, body).ConfigureAwait(false);
            afterEach?.Invoke(i);
        }
    }
}
