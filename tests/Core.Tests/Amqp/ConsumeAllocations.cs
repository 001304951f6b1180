using System.Runtime.CompilerServices;
using Prewire.Tasks;

namespace Prewire.Amqp;

/// <summary>
/// What consuming allocates in steady state, process-wide (read loop, handler dispatch, settlements,
/// socket): messages published with our publisher (0 B itself) on one connection, consumed on another
/// by a handler that only counts. The difference of the least short and long windows is what the
/// extra messages cost, as in <see cref="PublishAllocations"/>. Shared by the JIT tests
/// (<c>AmqpConsumerBrokerStateTests</c>, <c>AmqpReceiverBrokerStateTests</c>) and the NativeAOT fixture
/// (tests/AotSmoke/Fixtures/AllocationFixture).
/// </summary>
internal sealed class ConsumeAllocations(AmqpPublisher publisher, string queue, BasicProperties? properties = null)
{
    public const int ShortCount = 1_000, LongCount = 5_000, MaxPairs = 10;

    private long _handled;
    private long _target = long.MaxValue;
    private TaskCompletionSource? _reached;

    /// <summary>The consumer's handler: counts, and says when a window's messages are all in.</summary>
    public ValueTask Handle(AmqpDelivery delivery)
    {
        Count();
        return ValueTask.CompletedTask;
    }

    /// <summary>Counts a message handled, for a handler other than <see cref="Handle"/>.</summary>
    public void Count()
    {
        if (Interlocked.Increment(ref _handled) == Volatile.Read(ref _target)) _reached!.TrySetResult();
    }

    /// <summary>
    /// Warms up, then measures window pairs, three at least and more while the long window's extra
    /// messages cost more than <paramref name="expectedPerMessage"/> each (0: nothing at all; else
    /// less than a byte over it, a one-off not being a cost per message); <paramref name="scale"/>
    /// divides the windows (arm64 under qemu).
    /// </summary>
    public async Task<(long ShortWindow, long LongWindow)> MeasureAsync(int bodySize, int scale = 1, long expectedPerMessage = 0)
    {
        var body = new byte[bodySize];
        properties ??= new BasicProperties { MessageId = "fixed", ContentType = "application/octet-stream" };
        for (var round = 0; round < 5; round++) await WindowAsync(body, properties, 2_000 / scale);
        var more = (LongCount - ShortCount) / scale;
        var budget = expectedPerMessage == 0 ? 0 : ((expectedPerMessage + 1) * more) - 1;
        var (shortWindow, longWindow) = (long.MaxValue, long.MaxValue);
        for (var pair = 0; pair < MaxPairs && (pair < 3 || longWindow - shortWindow > budget); pair++)
        {
            shortWindow = Math.Min(shortWindow, await WindowAsync(body, properties, ShortCount / scale));
            longWindow = Math.Min(longWindow, await WindowAsync(body, properties, LongCount / scale));
        }
        return (shortWindow, longWindow);
    }

    private async Task<long> WindowAsync(byte[] body, BasicProperties properties, int count)
    {
        var reached = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        var before = GC.GetTotalAllocatedBytes(precise: true);
        _reached = reached;
        Volatile.Write(ref _target, Volatile.Read(ref _handled) + count);
        await PublishLoopAsync(body, properties, count).ConfigureAwait(false);
        await reached.Task.ConfigureAwait(false);
        return GC.GetTotalAllocatedBytes(precise: true) - before;
    }

    // The library's builder: the runtime's caches one box a thread and a core, and a miss (136 B, a few
    // windows in ten on 2 cores) is the harness's, not the client's.
    [AsyncMethodBuilder(typeof(PooledValueTaskMethodBuilder))]
    private async ValueTask PublishLoopAsync(byte[] body, BasicProperties properties, int count)
    {
        for (var i = 0; i < count; i++) await publisher.PublishAsync("", queue, properties, body).ConfigureAwait(false);
    }
}
