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
    public async Task Taking_a_free_lock_without_waiting_races_the_waiters_and_strands_none()
    {
        // A hand-over lost between a releaser and a queued waiter would strand the waiter (the test times
        // out); a double take would show as an overlap.
        var gate = new AsyncLock();
        var inside = 0;
        var overlaps = 0;
        var taken = 0;
        await Task.WhenAll(Enumerable.Range(0, 8).Select(worker => Task.Run(async () =>
        {
            for (var i = 0; i < 5000; i++)
            {
                if (worker % 2 == 0 || !gate.TryEnter()) await gate.WaitAsync();
                if (Interlocked.Increment(ref inside) != 1) Interlocked.Increment(ref overlaps);
                taken++;
                if (i % 16 == 0) await Task.Yield(); // held across a yield: the others find it taken and queue
                Interlocked.Decrement(ref inside);
                gate.Release();
            }
        }, TestContext.Current.CancellationToken))).WaitAsync(TimeSpan.FromSeconds(30), TestContext.Current.CancellationToken);

        Assert.Equal(0, overlaps);
        Assert.Equal(40_000, taken);
        Assert.False(gate.HasWaiters);
        Assert.True(gate.TryEnter());
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
        // Bounded: a hand-over lost between the releaser and a queued waiter strands it for ever.
        await Task.WhenAll(waiters).WaitAsync(TimeSpan.FromSeconds(10), TestContext.Current.CancellationToken);
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
