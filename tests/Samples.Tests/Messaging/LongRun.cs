namespace Prewire.Samples.Messaging;

/// <summary>
/// What a service running for weeks needs of a per-message path, measured in this process: the bytes
/// allocated over a long steady run against the per-message cost of short windows, and the managed
/// heap after a full collection at both ends of the run. A cost paid once every few thousand messages
/// (a pool that drops an item now and then, a collection that grows forever) hides from the short
/// windows, which keep the least, and shows in both of these.
/// </summary>
internal static class LongRun
{
    public const int Operations = 200_000;

    /// <summary>
    /// What the long run may allocate beyond its per-message cost, and the heap may grow by: under
    /// the 4,400 B that 64 B kept once every 5,000 messages comes to over the run (40 arrays of 88 B
    /// and the list that holds them).
    /// </summary>
    public const long SlackBytes = 1024;

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

        var heapBefore = RunReport.HeapAfterFullCollection();
        var start = GC.GetAllocatedBytesForCurrentThread();
        Run(operation, Operations);
        var allocated = GC.GetAllocatedBytesForCurrentThread() - start;
        var heapGrowth = RunReport.HeapAfterFullCollection() - heapBefore;

        var failures = new List<string>();
        var expected = perWindow * (Operations / Window);
        if (allocated > expected + SlackBytes)
            failures.Add($"{what}: {Operations:N0} operations allocated {allocated:N0} B, {allocated - expected:N0} B more than {perWindow / (double)Window:0.###} B each (the least of 5 windows of {Window:N0})");
        if (heapGrowth > SlackBytes)
            failures.Add($"{what}: the heap after a full collection grew by {heapGrowth:N0} B over {Operations:N0} operations");
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
