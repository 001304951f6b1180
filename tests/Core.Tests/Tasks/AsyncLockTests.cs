namespace Prewire.Tasks;

public sealed class AsyncLockTests
{
    [Fact]
    public async Task Holders_never_overlap_under_contention()
    {
        var gate = new AsyncLock();
        var inside = 0;
        var overlaps = 0;
        var total = 0;
        await Task.WhenAll(Enumerable.Range(0, 8).Select(_ => Task.Run(async () =>
        {
            for (var i = 0; i < 2000; i++)
            {
                await gate.WaitAsync();
                if (Interlocked.Increment(ref inside) != 1) Interlocked.Increment(ref overlaps);
                total++;
                if (i % 64 == 0) await Task.Yield();
                Interlocked.Decrement(ref inside);
                gate.Release();
            }
        }, TestContext.Current.CancellationToken)));

        Assert.Equal(0, overlaps);
        Assert.Equal(16_000, total);
    }

    [Fact]
    public async Task Waiters_get_the_lock_in_arrival_order()
    {
        var gate = new AsyncLock();
        await gate.WaitAsync();
        var order = new List<int>();
        var waiters = Enumerable.Range(0, 5).Select(i =>
        {
            var turn = gate.WaitAsync();
            return ContinueAsync(turn, i);
        }).ToArray();

        gate.Release();
        await Task.WhenAll(waiters);
        Assert.Equal([0, 1, 2, 3, 4], order);

        async Task ContinueAsync(ValueTask turn, int i)
        {
            await turn;
            lock (order) order.Add(i);
            gate.Release();
        }
    }

    [Fact]
    public void Releasing_a_free_lock_is_a_bug_and_says_so()
    {
        var e = Assert.Throws<InvalidOperationException>(() => new AsyncLock().Release());
        Assert.Equal("the lock is not held", e.Message);
    }
}
