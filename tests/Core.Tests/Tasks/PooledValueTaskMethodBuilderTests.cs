#pragma warning disable xUnit1051 // The operations under test take no token.
#pragma warning disable CA2012 // The tests hold each task to look at it before its one await.
using System.Runtime.CompilerServices;

namespace Prewire.Tasks;

[Collection(nameof(Prewire.Pipeline.AllocationTests))]
public sealed class PooledValueTaskMethodBuilderTests
{
    [Fact]
    public void A_method_that_does_not_suspend_returns_a_completed_task_without_a_box()
    {
        var task = Suspending(null);

        Assert.True(task.IsCompletedSuccessfully);
        Assert.Equal(default, task);
    }

    [Fact]
    public async Task A_second_await_fails_instead_of_reading_a_later_result()
    {
        var operation = PooledCompletion.Rent<int>(runContinuationsAsynchronously: false);
        var task = Suspending(operation);
        operation.TrySetResult(0);
        await task;

        var next = PooledCompletion.Rent<int>(runContinuationsAsynchronously: false);
        var reused = Suspending(next);
        await Assert.ThrowsAsync<InvalidOperationException>(async () => await task);
        next.TrySetResult(0);
        await reused;
    }

    [Fact]
    public void Many_suspended_at_once_then_completed_together_allocate_zero_bytes()
    {
        // 32 in flight, as many HTTP requests waiting for their confirms: more boxes out at once than
        // a pool of one per thread and one per core keeps.
        var operations = new PooledCompletion<int>[32];
        var tasks = new ValueTask[operations.Length];

        var extra = AllocationWindows.ThousandMoreRounds(() => PooledMethodBuilderTests.SuspendThenComplete(operations, tasks, static o => Suspending(o), static t => t.IsCompleted, static t => t.GetAwaiter().GetResult()));

        Assert.True(extra <= 0, $"1,000 more rounds of 32 suspended methods allocated {extra} bytes");
    }

    [AsyncMethodBuilder(typeof(PooledValueTaskMethodBuilder))]
    internal static async ValueTask Suspending(PooledCompletion<int>? operation)
    {
        if (operation is { } pending) await pending.Task.ConfigureAwait(false);
    }
}
