namespace Prewire;

/// <summary>Steady-state allocation measured process-wide, as the difference of a long and a short window.</summary>
internal static class AllocationWindows
{
    /// <summary>Window pairs measured at most.</summary>
    public const int MaxPairs = 10;

    /// <summary>Bytes allocated process-wide over <paramref name="rounds"/> calls of <paramref name="round"/>.</summary>
    public static long Window(Action round, int rounds)
    {
        var before = GC.GetTotalAllocatedBytes(precise: true);
        for (var i = 0; i < rounds; i++) round();
        return GC.GetTotalAllocatedBytes(precise: true) - before;
    }

    /// <summary>
    /// What 1,000 more rounds allocate than 200 after a warm-up: the difference of the least long and
    /// the least short window over as many pairs as it takes to come down to <paramref name="expected"/>,
    /// at most <see cref="MaxPairs"/>.
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
        for (var pair = 0; pair < MaxPairs && (pair == 0 || longWindow - shortWindow > expected); pair++)
        {
            shortWindow = Math.Min(shortWindow, Window(round, 200));
            longWindow = Math.Min(longWindow, Window(round, 1_200));
        }
        return longWindow - shortWindow;
    }
}
