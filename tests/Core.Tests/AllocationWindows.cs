namespace Prewire;

/// <summary>Steady-state allocation measured process-wide, as the difference of a long and a short window.</summary>
internal static class AllocationWindows
{
    /// <summary>Window pairs measured at most.</summary>
    public const int MaxPairs = 10;

    /// <summary>Bytes allocated process-wide over <paramref name="rounds"/> calls of <paramref name="round"/>.</summary>
    public static long Window(Action round, int rounds) => Window(round, rounds, static () => GC.GetTotalAllocatedBytes(precise: true));

    private static long Window(Action round, int rounds, Func<long> allocated)
    {
        var before = allocated();
        for (var i = 0; i < rounds; i++) round();
        return allocated() - before;
    }

    /// <summary>
    /// What 1,000 more rounds allocate than 200 on this thread alone, after a warm-up: exact whatever
    /// else the process runs, for a round that allocates only on its own thread (a yardstick, not a
    /// measurement of code that could allocate elsewhere).
    /// </summary>
    public static long ThousandMoreRoundsOnThisThread(Action round)
    {
        for (var i = 0; i < 3_000; i++) round();
        return Window(round, 1_200, GC.GetAllocatedBytesForCurrentThread) - Window(round, 200, GC.GetAllocatedBytesForCurrentThread);
    }

    /// <summary>
    /// What 1,000 more rounds allocate than 200 after a warm-up: the difference of the least long and
    /// the least short window over as many pairs as it takes to come to exactly <paramref name="expected"/>,
    /// at most <see cref="MaxPairs"/>: a short window that caught another thread's allocation makes the
    /// difference too small as surely as a long one makes it too big (seen: 1,896 B under 2,048,000).
    /// </summary>
    /// <remarks>
    /// A window can hold a one-off that is not a cost per round: a tier-up, or a thread-pool thread
    /// running a pooled item for the first time and keeping it in its own slot, so that the next
    /// round makes one more: 32 B per thread, once (seen in CI: the least of three pairs differed by
    /// 128 B, where a cost per continuation would be 16,000 times one). A cost per round is in every
    /// window, so no number of pairs hides it.
    /// </remarks>
    public static long ThousandMoreRounds(Action round, long expected = 0)
    {
        for (var i = 0; i < 3_000; i++) round();
        var (shortWindow, longWindow) = (long.MaxValue, long.MaxValue);
        for (var pair = 0; pair < MaxPairs && (pair == 0 || longWindow - shortWindow != expected); pair++)
        {
            shortWindow = Math.Min(shortWindow, Window(round, 200));
            longWindow = Math.Min(longWindow, Window(round, 1_200));
        }
        return longWindow - shortWindow;
    }
}
