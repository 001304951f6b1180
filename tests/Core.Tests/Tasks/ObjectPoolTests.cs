namespace Prewire.Tasks;

public sealed class ObjectPoolTests
{
    [Fact]
    public void A_thread_that_has_used_one_pool_allocates_nothing_when_it_first_uses_another()
    {
        // Items in the pool already, as in a warm process; then a thread that has run pooled operations
        // of another kind uses this pool for the first time (a pool thread resuming its first
        // continuation of a kind long after start-up).
        ObjectPool<Item>.Return(new Item());
        ObjectPool<Item>.Return(new Item());
        var allocated = -1L;
        var rented = false;
        var thread = new Thread(() =>
        {
            ObjectPool<Other>.Return(ObjectPool<Other>.TryRent() ?? new Other());
            var before = GC.GetAllocatedBytesForCurrentThread();
            var item = ObjectPool<Item>.TryRent();
            if (item is not null) ObjectPool<Item>.Return(item);
            allocated = GC.GetAllocatedBytesForCurrentThread() - before;
            rented = item is not null;
        });
        thread.Start();
        thread.Join();

        Assert.True(rented, "the pool held two items and gave none");
        Assert.Equal(0, allocated);
    }

    [Fact]
    public void Items_returned_come_back_and_a_full_pool_drops_the_rest()
    {
        var items = Enumerable.Range(0, 4096).Select(_ => new Other()).ToArray();
        foreach (var item in items) ObjectPool<Other>.Return(item);
        var back = new HashSet<Other>();
        while (ObjectPool<Other>.TryRent() is { } item) Assert.True(back.Add(item), "an item came back twice");

        Assert.NotEmpty(back);
        Assert.True(back.Count < items.Length, $"a pool that never grows kept all {items.Length}");
        Assert.Subset(items.ToHashSet(), back);
    }

    private sealed class Item;

    private sealed class Other;
}
