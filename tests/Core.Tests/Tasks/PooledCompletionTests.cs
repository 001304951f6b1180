#pragma warning disable xUnit1051 // Operations without a token are the case under test.
namespace Prewire.Tasks;

public sealed class PooledCompletionTests
{
    [Fact]
    public async Task Awaiting_returns_the_result_set_from_another_thread()
    {
        var operation = PooledCompletion.Rent<int>();
        var task = operation.Task;
        _ = Task.Run(async () => { await Task.Delay(20); operation.TrySetResult(42); }, TestContext.Current.CancellationToken);

        Assert.Equal(42, await task);
    }

    [Fact]
    public async Task A_second_await_fails_clearly_instead_of_reading_a_later_result()
    {
        var operation = PooledCompletion.Rent<int>(runContinuationsAsynchronously: false);
        var task = operation.Task;
        operation.TrySetResult(1);
        Assert.Equal(1, await task);

        // The backing object is back in the pool; the next operation on this thread reuses it.
        var next = PooledCompletion.Rent<int>(runContinuationsAsynchronously: false);
        next.TrySetResult(2);

        var e = await Assert.ThrowsAsync<InvalidOperationException>(async () => await task);
        Assert.Contains("awaited exactly once", e.Message, StringComparison.Ordinal);
        Assert.Equal(2, await next.Task);
    }

    [Fact]
    public async Task A_stale_copy_cannot_complete_a_later_operation()
    {
        var first = PooledCompletion.Rent<string>(runContinuationsAsynchronously: false);
        first.TrySetResult("first");
        Assert.Equal("first", await first.Task);

        var second = PooledCompletion.Rent<string>(runContinuationsAsynchronously: false);
        Assert.False(first.TrySetResult("stale"), "a completion for an operation that is over must be refused");
        Assert.True(second.TrySetResult("second"));
        Assert.Equal("second", await second.Task);
    }

    [Fact]
    public async Task Only_the_first_completion_counts()
    {
        var operation = PooledCompletion.Rent<int>();
        Assert.True(operation.TrySetResult(1));
        Assert.False(operation.TrySetResult(2));
        Assert.False(operation.TrySetException(new InvalidOperationException()));
        Assert.False(operation.TrySetCanceled());
        Assert.Equal(1, await operation.Task);
    }

    [Fact]
    public async Task An_exception_surfaces_at_the_await()
    {
        var operation = PooledCompletion.Rent<int>();
        operation.TrySetException(new FormatException("broker said no"));

        var e = await Assert.ThrowsAsync<FormatException>(async () => await operation.Task);
        Assert.Equal("broker said no", e.Message);
    }

    [Fact]
    public async Task Cancelling_the_token_cancels_the_operation_and_later_completions_are_refused()
    {
        using var cts = new CancellationTokenSource();
        var operation = PooledCompletion.Rent<int>(cancellationToken: cts.Token);
        var task = operation.Task;

        await cts.CancelAsync();

        var e = await Assert.ThrowsAnyAsync<OperationCanceledException>(async () => await task);
        Assert.Equal(cts.Token, e.CancellationToken);
        Assert.False(operation.TrySetResult(1));
    }

    [Fact]
    public async Task Completing_first_detaches_the_cancellation()
    {
        using var cts = new CancellationTokenSource();
        var operation = PooledCompletion.Rent<int>(cancellationToken: cts.Token);
        operation.TrySetResult(7);
        await cts.CancelAsync();

        Assert.Equal(7, await operation.Task);
    }

    [Fact]
    public async Task The_result_less_view_awaits_the_same_operation()
    {
        var operation = PooledCompletion.Rent<bool>();
        var task = operation.AsValueTask();
        operation.TrySetResult(true);
        await task;
    }

    [Fact]
    public async Task A_dropped_unawaited_operation_is_collected_not_leaked()
    {
        var weak = DropOne();
        // Completed asynchronously, it is the thread pool's until its work item ran; then nobody's.
        // The item waits in this thread's own queue when it is a pool thread, so the wait awaits
        // (a sleep held it there) and has a deadline, not a count: a busy suite on 2 cores once kept
        // it queued through 100 rounds of 10 ms (a CI run on 2026-12-05).
        var waited = System.Diagnostics.Stopwatch.StartNew();
        while (weak.IsAlive && waited.Elapsed < TimeSpan.FromSeconds(10))
        {
            GC.Collect();
            GC.WaitForPendingFinalizers();
            if (weak.IsAlive) await Task.Delay(10, TestContext.Current.CancellationToken);
        }
        Assert.False(weak.IsAlive, "the backing object of a dropped operation must be collectable");

        // The pool does not depend on it coming back: the next operation works.
        var next = PooledCompletion.Rent<object>();
        Assert.True(next.TrySetResult("ok"));
    }

    [System.Runtime.CompilerServices.MethodImpl(System.Runtime.CompilerServices.MethodImplOptions.NoInlining)]
    private static WeakReference DropOne()
    {
        var operation = PooledCompletion.Rent<object>();
        operation.TrySetResult(new object()); // completed, never awaited, then dropped
        var source = typeof(PooledCompletion<object>).GetField("_source", System.Reflection.BindingFlags.NonPublic | System.Reflection.BindingFlags.Instance)!.GetValue(operation);
        return new WeakReference(source);
    }
}
