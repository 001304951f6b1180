#pragma warning disable xUnit1051 // The operations under test take no token.
#pragma warning disable CA2012 // The tests hold each task to look at it before its one await.
using System.Runtime.CompilerServices;

namespace Prewire.Tasks;

[Collection(nameof(Prewire.Pipeline.AllocationTests))]
public sealed class PooledValueTaskMethodBuilderTests
{
    private static readonly AsyncLocal<string> _flowing = new();

    [Fact]
    public void A_method_that_does_not_suspend_returns_a_completed_task_without_a_box()
    {
        var task = Suspending(null);

        Assert.True(task.IsCompletedSuccessfully);
        Assert.Equal(default, task);
    }

    [Fact]
    public async Task A_method_that_throws_before_suspending_fails_its_task()
    {
        var task = ThrowingAfter(null);

        Assert.True(task.IsFaulted);
        Assert.Equal("boom", (await Assert.ThrowsAsync<InvalidOperationException>(async () => await task)).Message);
    }

    [Fact]
    public async Task A_suspended_method_completes_and_fails_when_what_it_awaits_does()
    {
        var ok = PooledCompletion.Rent<int>();
        var okTask = Suspending(ok);
        var failing = PooledCompletion.Rent<int>();
        var failingTask = ThrowingAfter(failing);
        Assert.False(okTask.IsCompleted);
        Assert.False(failingTask.IsCompleted);

        _ = Task.Run(() => { ok.TrySetResult(1); failing.TrySetResult(2); }, TestContext.Current.CancellationToken);

        await okTask;
        Assert.Equal("boom", (await Assert.ThrowsAsync<InvalidOperationException>(async () => await failingTask)).Message);
    }

    [Fact]
    public async Task The_execution_context_flows_across_a_suspension()
    {
        _flowing.Value = "request 7";
        var operation = PooledCompletion.Rent<int>();
        var task = ReadsFlowingAfter(operation);
        _flowing.Value = "changed after the call";

        // Completed on a thread whose own context knows nothing of the value.
        _ = Task.Run(() => operation.TrySetResult(0), TestContext.Current.CancellationToken);

        Assert.Equal("request 7", await task ?? "(nothing)");
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

        // Warm-up until tiered compilation settled; then the difference of two windows, least of three
        // pairs: what measuring costs once (a tier-up landing in a window) is not a cost per call.
        for (var round = 0; round < 3_000; round++) Round(operations, tasks);
        var extra = long.MaxValue;
        for (var pair = 0; pair < 3; pair++)
        {
            var shortWindow = Window(operations, tasks, 200);
            var longWindow = Window(operations, tasks, 1_200);
            extra = Math.Min(extra, longWindow - shortWindow);
        }

        Assert.True(extra <= 0, $"1,000 more rounds of 32 suspended methods allocated {extra} bytes");
    }

    private static long Window(PooledCompletion<int>[] operations, ValueTask[] tasks, int rounds)
    {
        var before = GC.GetTotalAllocatedBytes(precise: true);
        for (var round = 0; round < rounds; round++) Round(operations, tasks);
        return GC.GetTotalAllocatedBytes(precise: true) - before;
    }

    private static void Round(PooledCompletion<int>[] operations, ValueTask[] tasks)
    {
        for (var i = 0; i < operations.Length; i++)
        {
            operations[i] = PooledCompletion.Rent<int>(runContinuationsAsynchronously: false);
            tasks[i] = Suspending(operations[i]);
            if (tasks[i].IsCompleted) throw new InvalidOperationException("the method must be suspended");
        }
        foreach (var operation in operations) operation.TrySetResult(0);
        foreach (var task in tasks) task.GetAwaiter().GetResult();
    }

    [AsyncMethodBuilder(typeof(PooledValueTaskMethodBuilder))]
    private static async ValueTask Suspending(PooledCompletion<int>? operation)
    {
        if (operation is { } pending) await pending.Task.ConfigureAwait(false);
    }

    [AsyncMethodBuilder(typeof(PooledValueTaskMethodBuilder))]
    private static async ValueTask ThrowingAfter(PooledCompletion<int>? operation)
    {
        if (operation is { } pending) await pending.Task.ConfigureAwait(false);
        throw new InvalidOperationException("boom");
    }

    private static async ValueTask<string?> ReadsFlowingAfter(PooledCompletion<int> operation)
    {
        await Inner(operation).ConfigureAwait(false);
        return _captured;
    }

    private static string? _captured;

    [AsyncMethodBuilder(typeof(PooledValueTaskMethodBuilder))]
    private static async ValueTask Inner(PooledCompletion<int> operation)
    {
        await operation.Task.ConfigureAwait(false);
        _captured = _flowing.Value;
    }
}
