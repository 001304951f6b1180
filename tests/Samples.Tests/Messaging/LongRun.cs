using System.Globalization;

namespace Prewire.Samples.Messaging;

/// <summary>
/// What a service running for weeks needs of a per-message path, measured in this process: the bytes
/// allocated over a long steady run against the per-message cost of short windows, and what the run
/// keeps, seen as the managed heap after a full collection growing segment after segment. A cost paid
/// once every few thousand messages (a pool that drops an item now and then, a collection that grows
/// forever) hides from the short windows, which keep the least, and shows in both of these.
/// </summary>
internal static class LongRun
{
    /// <summary>Segments of the run, the heap read after a full collection before and after each.</summary>
    public const int Segments = 5;

    /// <summary>Operations a segment: 64 B kept every 5,000 is 40 arrays of 88 B, 3.5 KB a segment.</summary>
    public const int SegmentOperations = 200_000;

    public const int Operations = Segments * SegmentOperations;

    /// <summary>
    /// What the long run may allocate beyond its per-message cost: under the 17,600 B that 64 B
    /// allocated once every 5,000 messages comes to over the run (200 arrays of 88 B).
    /// </summary>
    public const long SlackBytes = 1024;

    /// <summary>
    /// What the heap may grow by in the middle segment (the median of the segments' growth). The heap
    /// after a full collection is the whole process's: a test class that ran before, the runner's own
    /// queues, move it by several KB now and then, in one segment, either way. A leak grows it in every
    /// segment; the median sees that and not a one-off.
    /// </summary>
    public const long HeapSlackBytes = 1024;

    private const int Warmup = 20_000, Window = 1_000;

    /// <summary>
    /// Runs <paramref name="operation"/> to a steady state, then <see cref="Operations"/> times, and
    /// returns what of the two checks failed (empty when neither did). Each operation must complete
    /// synchronously: everything it allocates is then counted on this thread, whatever runs beside it.
    /// </summary>
    public static IReadOnlyList<string> Check(string what, Func<ValueTask> operation)
    {
        Run(operation, Warmup);
        var perWindow = long.MaxValue;
        for (var i = 0; i < 5; i++)
        {
            var before = GC.GetAllocatedBytesForCurrentThread();
            Run(operation, Window);
            perWindow = Math.Min(perWindow, GC.GetAllocatedBytesForCurrentThread() - before);
        }

        var (growth, allocated) = (new long[Segments], 0L);
        var heap = HeapReadings.HeapAfterFullCollection();
        for (var s = 0; s < Segments; s++)
        {
            // Only the operations are counted: reading the heap's figures allocates a little itself.
            var before = GC.GetAllocatedBytesForCurrentThread();
            Run(operation, SegmentOperations);
            allocated += GC.GetAllocatedBytesForCurrentThread() - before;
            var now = HeapReadings.HeapAfterFullCollection();
            (growth[s], heap) = (now - heap, now);
        }
        var medianGrowth = growth.Order().ElementAt(Segments / 2);

        var failures = new List<string>();
        var expected = perWindow * (Operations / Window);
        if (allocated > expected + SlackBytes)
            failures.Add($"{what}: {Operations:N0} operations allocated {allocated:N0} B, {allocated - expected:N0} B more than {perWindow / (double)Window:0.###} B each (the least of 5 windows of {Window:N0})");
        if (medianGrowth > HeapSlackBytes)
            failures.Add($"{what}: the heap after a full collection grew by {medianGrowth:N0} B in the median of {Segments} segments of {SegmentOperations:N0} operations ({string.Join(", ", growth.Select(g => g.ToString("N0", CultureInfo.InvariantCulture)))} B)");
        return failures;
    }

    private static void Run(Func<ValueTask> operation, int count)
    {
        for (var i = 0; i < count; i++)
        {
            var pending = operation();
            if (!pending.IsCompletedSuccessfully) throw new InvalidOperationException("the operation did not complete synchronously; its allocations would be counted on another thread");
            pending.GetAwaiter().GetResult();
        }
    }
}
