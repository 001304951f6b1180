using System.Runtime.CompilerServices;

namespace Prewire.Tasks;

/// <summary>
/// An awaiter finds the operation pending, the completer finishes, then the awaiter registers: the
/// race a busy host makes a few times in every few thousand awaits. Staged here in that order, the
/// continuation still runs, and registering it allocates nothing (32 B a time through the runtime's core).
/// </summary>
public sealed class ContinuationHandoffTests
{
    [Fact]
    public async Task A_completion_that_overtakes_the_await_of_an_operation_runs_its_continuation_without_allocating()
    {
        for (var round = 0; round < 3; round++)
        {
            var operation = PooledCompletion.Rent<int>(runContinuationsAsynchronously: false, TestContext.Current.CancellationToken);
            var awaiter = Awaiter(operation.Task);
            Assert.False(awaiter.IsCompleted);
            operation.TrySetResult(round);

            var (allocated, result) = await RegisterLateAsync(() => awaiter.GetResult(), awaiter.UnsafeOnCompleted);

            Assert.Equal(round, result);
            if (round > 0) Assert.Equal(0, allocated);
        }
    }

    [Fact]
    public async Task A_pooled_method_that_completes_before_its_await_registers_runs_the_continuation_without_allocating()
    {
        for (var round = 0; round < 3; round++)
        {
            var operation = PooledCompletion.Rent<int>(runContinuationsAsynchronously: false, TestContext.Current.CancellationToken);
            var passed = new StrongBox<int>(-1);
            var awaiter = Awaiter(PassOnAsync(operation.Task, passed));
            Assert.False(awaiter.IsCompleted);
            operation.TrySetResult(round); // The method resumes inline and completes its box.

            var (allocated, result) = await RegisterLateAsync(
                () =>
                {
                    awaiter.GetResult();
                    return passed.Value;
                },
                awaiter.UnsafeOnCompleted);

            Assert.Equal(round, result);
            if (round > 0) Assert.Equal(0, allocated);
        }
    }

    [Fact]
    public async Task A_second_await_of_a_pending_operation_throws_and_the_first_still_resumes()
    {
        var operation = PooledCompletion.Rent<int>(runContinuationsAsynchronously: false, TestContext.Current.CancellationToken);
        var awaiter = Awaiter(operation.Task);
        var ran = new TaskCompletionSource<int>(TaskCreationOptions.RunContinuationsAsynchronously);
        awaiter.UnsafeOnCompleted(() => ran.SetResult(awaiter.GetResult()));

        Assert.Throws<InvalidOperationException>(() => awaiter.UnsafeOnCompleted(() => ran.SetResult(-1)));
        operation.TrySetResult(7);

        Assert.Equal(7, await ran.Task.WaitAsync(TimeSpan.FromSeconds(10), TestContext.Current.CancellationToken));
    }

    // What registering allocated on this thread, and the result the continuation (run by the pool) read.
    private static async Task<(long Allocated, int Result)> RegisterLateAsync(Func<int> getResult, Action<Action> register)
    {
        var ran = new TaskCompletionSource<int>(TaskCreationOptions.RunContinuationsAsynchronously);
        Action continuation = () => ran.SetResult(getResult());
        var before = GC.GetAllocatedBytesForCurrentThread();
        register(continuation);
        var allocated = GC.GetAllocatedBytesForCurrentThread() - before;
        return (allocated, await ran.Task.WaitAsync(TimeSpan.FromSeconds(10), TestContext.Current.CancellationToken));
    }

    // Without a context to capture, as every await in the library.
    private static ConfiguredValueTaskAwaitable<int>.ConfiguredValueTaskAwaiter Awaiter(ValueTask<int> task) => task.ConfigureAwait(false).GetAwaiter();

    private static ConfiguredValueTaskAwaitable.ConfiguredValueTaskAwaiter Awaiter(ValueTask task) => task.ConfigureAwait(false).GetAwaiter();

    [AsyncMethodBuilder(typeof(PooledValueTaskMethodBuilder))]
    private static async ValueTask PassOnAsync(ValueTask<int> operation, StrongBox<int> passed) => passed.Value = await operation.ConfigureAwait(false);
}
