#pragma warning disable xUnit1051 // The operations under test take no token.
using System.Runtime.CompilerServices;

namespace Prewire.Tasks;

[Collection(nameof(Prewire.Pipeline.AllocationTests))]
public sealed class PooledTaskMethodBuilderTests
{
    private static readonly AsyncLocal<string> _flowing = new();

    [Fact]
    public void A_method_that_does_not_suspend_returns_the_completed_task()
    {
        Assert.Same(Task.CompletedTask, Suspending(null));
    }

    [Fact]
    public void The_task_completes_on_the_thread_that_completed_the_method_before_its_completer_returns()
    {
        var operation = PooledCompletion.Rent<int>(runContinuationsAsynchronously: false);
        var task = Suspending(operation);
        Assert.False(task.IsCompleted);

        operation.TrySetResult(0);

        Assert.True(task.IsCompletedSuccessfully);
    }

    [Fact]
    public async Task A_method_completed_near_the_end_of_a_stack_completes_its_task_on_the_thread_pool()
    {
        var operation = PooledCompletion.Rent<int>(runContinuationsAsynchronously: false);
        var task = Suspending(operation);

        // A small stack, used up until the runtime says it is nearly full: there the scheduler would not
        // run the task inline, and RunSynchronously would wait for the pool instead of returning.
        var deep = new Thread(() => CompleteWhenTheStackIsNearlyFull(operation), maxStackSize: 256 * 1024);
        deep.Start();
        deep.Join();

        await task.WaitAsync(TimeSpan.FromSeconds(30), TestContext.Current.CancellationToken);
        Assert.True(task.IsCompletedSuccessfully);
    }

    [Fact]
    public async Task The_callers_context_is_as_it_was_once_the_method_suspended()
    {
        // Its task is made in the default context, put in place and back around it; the default context
        // is learnt on the pool after a first suspension, so some come first.
        for (var i = 0; i < 20; i++)
        {
            var warming = PooledCompletion.Rent<int>(runContinuationsAsynchronously: false);
            var warmingTask = Suspending(warming);
            warming.TrySetResult(0);
            await warmingTask;
            await Task.Delay(1, TestContext.Current.CancellationToken);
        }
        _flowing.Value = "the caller's";
        var operation = PooledCompletion.Rent<int>(runContinuationsAsynchronously: false);

        var task = Suspending(operation);

        Assert.False(task.IsCompleted);
        Assert.Equal("the caller's", _flowing.Value);
        operation.TrySetResult(0);
        await task;
    }

    [Fact]
    public void Many_suspended_at_once_allocate_one_bare_task_each_and_nothing_more()
    {
        // 32 in flight, as many HTTP requests waiting for their confirms.
        var operations = new PooledCompletion<int>[32];
        var tasks = new Task[operations.Length];

        // With the context's flow suppressed, a task keeps no context: a bare task at its smallest. This
        // test runs in xunit's context, not the default one, as Kestrel's requests run in their
        // connection's logging scope: the builder's tasks must be as small there. Both are counted on
        // this thread only: a task that is not started allocates nowhere else, and a method whose
        // operation completes without running continuations asynchronously resumes, finishes and gives
        // its box back inline, on the thread that completed it (checked first). Process-wide, every one
        // of ten long windows in a full run once held 336 B more than the bare tasks (2,048,336 B against
        // 2,048,000, 2026-12-07), most likely what other threads allocated meanwhile.
        for (var i = 0; i < operations.Length; i++)
        {
            var (operation, task) = Suspended();
            operation.TrySetResult(0);
            Assert.True(task.IsCompletedSuccessfully, "the method did not finish inline: its allocations are not all this thread's");
        }

        long bare;
        using (ExecutionContext.SuppressFlow())
        {
            bare = AllocationWindows.ThousandMoreRoundsOnThisThread(() => BareTasks(tasks));
        }
        var extra = AllocationWindows.ThousandMoreRoundsOnThisThread(() => PooledMethodBuilderTests.SuspendThenComplete(operations, tasks, static o => Suspending(o), static t => t.IsCompleted, static t => t.GetAwaiter().GetResult()));

        Assert.True(bare > 0, "a bare task must cost something to measure against");
        Assert.True(extra == bare, $"1,000 more rounds of 32 suspended methods allocated {extra} bytes; as many bare tasks, {bare}");
    }

    private static readonly Action<object?> _nothing = static _ => { };

    private static (PooledCompletion<int>, Task) Suspended()
    {
        var operation = PooledCompletion.Rent<int>(runContinuationsAsynchronously: false);
        return (operation, Suspending(operation));
    }

    private static void BareTasks(Task[] tasks)
    {
        for (var i = 0; i < tasks.Length; i++) tasks[i] = new Task(_nothing, null);
    }

    private static void CompleteWhenTheStackIsNearlyFull(PooledCompletion<int> operation)
    {
        if (RuntimeHelpers.TryEnsureSufficientExecutionStack())
        {
            Span<byte> frame = stackalloc byte[1024];
            frame[0] = 1;
            CompleteWhenTheStackIsNearlyFull(operation);
            return;
        }
        operation.TrySetResult(0);
    }

    [AsyncMethodBuilder(typeof(PooledTaskMethodBuilder))]
    internal static async Task Suspending(PooledCompletion<int>? operation)
    {
        if (operation is { } pending) await pending.Task.ConfigureAwait(false);
    }
}
