namespace Prewire.Samples;

/// <summary>
/// What a run keeps and allocates as it goes (<c>--heap-check</c>): at each 25th of a counted run and at
/// its last message, or once warm and at the end of a worker's run, the bytes the process has allocated
/// and its managed heap after a full, compacting collection. A leak grows the heap in most intervals;
/// pools reaching a new high-water mark grow it in a few steps (docs/smoke-tests.md).
/// </summary>
internal sealed class HeapReadings(long? requested, long warmAt, Func<long> allocatedBytes)
{
    // 25: at 200,000 messages an interval is 8,000, so a leak of one object every 5,000 grows each of them.
    private const int Slots = 25;

    private readonly long[] _at = new long[Slots];
    private readonly long[] _allocated = new long[Slots];
    private readonly long[] _heap = new long[Slots];
    private readonly long _every = requested is { } count ? Math.Max(1, count / Slots) : warmAt;

    /// <summary>Takes a reading if message <paramref name="done"/> is one the run reads at.</summary>
    public void Done(long done)
    {
        if (Slot(done) is var slot and >= 0) Take(slot, done);
    }

    /// <summary>The readings as report fields, the last taken now if the run ended before its last message.</summary>
    public (string Name, object? Value)[] Fields(long done)
    {
        if (Volatile.Read(ref _at[Slots - 1]) == 0) Take(Slots - 1, done);
        // Loops, not LINQ: its instantiations over long (and a string.Join of them) cost the Consumer 29,056 B
        // and each start 46,094 instructions (cachegrind, --count 0).
        var taken = 0;
        for (var i = 0; i < Slots; i++) taken += Volatile.Read(ref _at[i]) != 0 ? 1 : 0;
        var (at, allocated, heap) = (new long[taken], new long[taken], new long[taken]);
        for (int i = 0, k = 0; i < Slots; i++)
        {
            if (_at[i] == 0) continue;
            (at[k], allocated[k], heap[k]) = (_at[i], _allocated[i], _heap[i]);
            k++;
        }
        return [("readingsAt", at), ("allocatedBytes", allocated), ("heapBytes", heap)];
    }

    // The k-th 25th is slot k-1; the last message (or a worker's end) the last slot.
    private int Slot(long done) => requested switch
    {
        null => done == warmAt ? 0 : -1,
        var count when done == count => Slots - 1,
        _ => done % _every == 0 && done / _every < Slots ? (int)(done / _every) - 1 : -1,
    };

    // Allocated first: the collections allocate nothing managed, the count would not see them anyway.
    private void Take(int slot, long done)
    {
        _allocated[slot] = allocatedBytes();
        _heap[slot] = HeapAfterFullCollection();
        Volatile.Write(ref _at[slot], Math.Max(done, 1));
    }

    // Twice, with finalizers run between: what a finalizer frees is gone by the second. The live bytes
    // are read from that collection's own record, not GC.GetTotalMemory: with other threads allocating
    // (the client's loops) it also counts their allocation contexts, and read here it went negative.
    internal static long HeapAfterFullCollection()
    {
        GC.Collect(GC.MaxGeneration, GCCollectionMode.Forced, blocking: true, compacting: true);
        GC.WaitForPendingFinalizers();
        GC.Collect(GC.MaxGeneration, GCCollectionMode.Forced, blocking: true, compacting: true);
        var live = 0L;
        foreach (var generation in GC.GetGCMemoryInfo(GCKind.FullBlocking).GenerationInfo)
            live += generation.SizeAfterBytes - generation.FragmentationAfterBytes;
        return live;
    }
}
