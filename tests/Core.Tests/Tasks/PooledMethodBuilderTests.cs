#pragma warning disable xUnit1051 // The operations under test take no token.
using System.Runtime.CompilerServices;

namespace Prewire.Tasks;

/// <summary>What <see cref="PooledValueTaskMethodBuilder"/> and <see cref="PooledTaskMethodBuilder"/> both do as any async method does.</summary>
[Collection(nameof(Prewire.Pipeline.AllocationTests))]
public sealed class PooledMethodBuilderTests
{
    public enum Builder
    {
        ValueTask,
        Task,
    }

    private static readonly AsyncLocal<string> _flowing = new();
    private static string? _captured;

    [Theory]
    [InlineData(Builder.ValueTask)]
    [InlineData(Builder.Task)]
    public async Task A_method_that_throws_before_suspending_fails_its_task(Builder builder)
    {
        var task = ThrowingAfter(builder, null);

        Assert.True(task.IsFaulted);
        Assert.Equal("boom", (await Assert.ThrowsAsync<InvalidOperationException>(() => task)).Message);
    }

    [Theory]
    [InlineData(Builder.ValueTask)]
    [InlineData(Builder.Task)]
    public async Task A_suspended_method_completes_and_fails_when_what_it_awaits_does(Builder builder)
    {
        var ok = PooledCompletion.Rent<int>();
        var okTask = Suspending(builder, ok);
        var failing = PooledCompletion.Rent<int>();
        var failingTask = ThrowingAfter(builder, failing);
        Assert.False(okTask.IsCompleted);
        Assert.False(failingTask.IsCompleted);

        _ = Task.Run(() => { ok.TrySetResult(1); failing.TrySetResult(2); }, TestContext.Current.CancellationToken);

        await okTask;
        Assert.Equal("boom", (await Assert.ThrowsAsync<InvalidOperationException>(() => failingTask)).Message);
        Assert.True(failingTask.IsFaulted);
    }

    [Theory]
    [InlineData(Builder.ValueTask)]
    [InlineData(Builder.Task)]
    public async Task The_execution_context_flows_across_a_suspension(Builder builder)
    {
        _flowing.Value = "request 7";
        var operation = PooledCompletion.Rent<int>();
        var task = builder == Builder.Task ? ReadsFlowingAfter(operation) : ReadsFlowingAfterValueTask(operation).AsTask();
        _flowing.Value = "changed after the call";

        // Completed on a thread whose own context knows nothing of the value.
        _ = Task.Run(() => operation.TrySetResult(0), TestContext.Current.CancellationToken);

        await task;
        Assert.Equal("request 7", _captured);
    }

    /// <summary>Starts one suspended call per operation, completes them all, then waits for each.</summary>
    internal static void SuspendThenComplete<TTask>(PooledCompletion<int>[] operations, TTask[] tasks, Func<PooledCompletion<int>, TTask> start, Func<TTask, bool> isCompleted, Action<TTask> wait)
    {
        for (var i = 0; i < operations.Length; i++)
        {
            operations[i] = PooledCompletion.Rent<int>(runContinuationsAsynchronously: false);
            tasks[i] = start(operations[i]);
            if (isCompleted(tasks[i])) throw new InvalidOperationException("the method must be suspended");
        }
        foreach (var operation in operations) operation.TrySetResult(0);
        foreach (var task in tasks) wait(task);
    }

    private static Task Suspending(Builder builder, PooledCompletion<int>? operation) =>
        builder == Builder.Task ? PooledTaskMethodBuilderTests.Suspending(operation) : PooledValueTaskMethodBuilderTests.Suspending(operation).AsTask();

    private static Task ThrowingAfter(Builder builder, PooledCompletion<int>? operation) =>
        builder == Builder.Task ? ThrowingAfterTask(operation) : ThrowingAfterValueTask(operation).AsTask();

    [AsyncMethodBuilder(typeof(PooledTaskMethodBuilder))]
    private static async Task ThrowingAfterTask(PooledCompletion<int>? operation)
    {
        if (operation is { } pending) await pending.Task.ConfigureAwait(false);
        throw new InvalidOperationException("boom");
    }

    [AsyncMethodBuilder(typeof(PooledValueTaskMethodBuilder))]
    private static async ValueTask ThrowingAfterValueTask(PooledCompletion<int>? operation)
    {
        if (operation is { } pending) await pending.Task.ConfigureAwait(false);
        throw new InvalidOperationException("boom");
    }

    [AsyncMethodBuilder(typeof(PooledTaskMethodBuilder))]
    private static async Task ReadsFlowingAfter(PooledCompletion<int> operation)
    {
        await operation.Task.ConfigureAwait(false);
        _captured = _flowing.Value;
    }

    [AsyncMethodBuilder(typeof(PooledValueTaskMethodBuilder))]
    private static async ValueTask ReadsFlowingAfterValueTask(PooledCompletion<int> operation)
    {
        await operation.Task.ConfigureAwait(false);
        _captured = _flowing.Value;
    }
}
