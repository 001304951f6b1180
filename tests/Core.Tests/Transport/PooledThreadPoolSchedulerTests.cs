using Prewire.Pipeline;
using Prewire.Transport.Internal;

namespace Prewire.Transport;

[Collection(nameof(AllocationTests))]
public sealed class PooledThreadPoolSchedulerTests
{
    private static readonly Action<object?> _signal = static state => ((CountdownEvent)state!).Signal();

    [Fact]
    public void Continuations_run_on_the_thread_pool()
    {
        using var ran = new ManualResetEventSlim();
        var onPool = false;

        PooledThreadPoolScheduler.Instance.Schedule(_ => { onPool = Thread.CurrentThread.IsThreadPoolThread; ran.Set(); }, null);

        Assert.True(ran.Wait(TimeSpan.FromSeconds(30), TestContext.Current.CancellationToken));
        Assert.True(onPool);
    }

    [Fact]
    public void Continuations_scheduled_many_at_once_allocate_zero_bytes_in_steady_state()
    {
        // 16 at once, as many connections' pipes waking together; each round waits for all of them.
        using var done = new CountdownEvent(1);
        var extra = AllocationWindows.ThousandMoreRounds(() => Round(done));

        Assert.True(extra <= 0, $"1,000 more rounds of 16 scheduled continuations allocated {extra} bytes");
    }

    private static void Round(CountdownEvent done)
    {
        done.Reset(16);
        for (var i = 0; i < 16; i++) PooledThreadPoolScheduler.Instance.Schedule(_signal, done);
        done.Wait(TestContext.Current.CancellationToken);
    }
}
