using Prewire.Tasks;

namespace Prewire.Pipeline;

[CollectionDefinition(nameof(AllocationTests), DisableParallelization = true)]
public sealed class AllocationTests;

/// <summary>
/// Invoking a built prewired pipeline allocates nothing: measured exactly on the invoking thread, after
/// warm-up, with nothing else running; for a chain that completes synchronously, and for one whose end
/// completes later (from a pooled source).
/// </summary>
[Collection(nameof(AllocationTests))]
public sealed class PipelineAllocationTests
{
    [Theory]
    [InlineData(10)]
    [InlineData(40)]
    public void Invoking_a_prewired_pipeline_allocates_zero_bytes(int depth)
    {
        var (pipeline, context, end) = Build(depth);

        for (var i = 0; i < 100; i++) Invoke(pipeline, context);
        var before = GC.GetAllocatedBytesForCurrentThread();
        for (var i = 0; i < 1_000; i++) Invoke(pipeline, context);
        var allocated = GC.GetAllocatedBytesForCurrentThread() - before;

        Assert.Equal(1_100, end.Calls);
        Assert.Equal(0, allocated);
    }

    [Fact]
    public void A_message_still_pending_when_invoke_returns_allocates_zero_bytes()
    {
        // The end completes later from a pooled source, as a broker's confirm does; the single-context
        // behaviors wait for it in methods whose state machines come from a pool.
        var (pipeline, context, end) = Build(depth: 10, pending: true);
        for (var i = 0; i < 100; i++) InvokePending(pipeline, context, end);
        var before = GC.GetAllocatedBytesForCurrentThread();
        for (var i = 0; i < 1_000; i++) InvokePending(pipeline, context, end);
        var allocated = GC.GetAllocatedBytesForCurrentThread() - before;

        Assert.Equal(1_100, end.Calls);
        Assert.Equal(0, allocated);
    }

    private static void InvokePending(Pipeline<RootContext> pipeline, RootContext context, CountingEnd end)
    {
        var task = pipeline.Invoke(context);
        Assert.False(task.IsCompleted);
        end.CompleteLast();
        // Read: a pooled source goes back to its pool only then.
        if (task.IsCompletedSuccessfully) task.GetAwaiter().GetResult();
        else Assert.Fail("the pipeline's task did not complete");
    }

    // Half plain behaviors, half the single-context base (argument-free next), a stage connector in
    // the middle (its child context made once, so only the engine is measured) and a terminator.
    private static (Pipeline<RootContext>, RootContext, CountingEnd) Build(int depth, bool pending = false)
    {
        var context = new RootContext();
        var builder = new PipelineBuilder();
        for (var i = 0; i < depth / 2; i++)
        {
            builder.Register($"plain{i}", new Counting(), "counts");
            builder.Register($"base{i}", new CountingBase(), "counts");
        }
        var end = new CountingEnd(pending);
        builder.Register("to-child", new CachedChild(new ChildContext(context)), "root to child").Register("end", end, "ends");
        return (builder.Build<RootContext>(), context, end);
    }

    private static void Invoke(Pipeline<RootContext> pipeline, RootContext context)
    {
        var task = pipeline.Invoke(context);
        // Read: a pooled source goes back to its pool only then.
        if (task.IsCompletedSuccessfully) task.GetAwaiter().GetResult();
        else Assert.Fail("the pipeline's task did not complete");
    }

    private sealed class Counting : IBehavior<RootContext, RootContext>
    {
        private int _calls;

        public int Calls => _calls;

        public ValueTask Invoke(RootContext context, Func<RootContext, ValueTask> next)
        {
            _calls++;
            return next(context);
        }
    }

    private sealed class CountingBase : Behavior<RootContext>
    {
        private int _calls;

        public int Calls => _calls;

        public override ValueTask Invoke(RootContext context, Func<ValueTask> next)
        {
            _calls++;
            return next();
        }
    }

    private sealed class CachedChild(ChildContext child) : StageConnector<RootContext, ChildContext>
    {
        public override ValueTask Invoke(RootContext context, Func<ChildContext, ValueTask> next) => next(child);
    }

    private sealed class CountingEnd(bool pending) : PipelineTerminator<ChildContext>
    {
        private PooledCompletion<bool> _last;

        public int Calls { get; private set; }

        public void CompleteLast() => _last.TrySetResult(true);

        protected override ValueTask Terminate(ChildContext context)
        {
            Calls++;
            if (!pending) return default;
            _last = PooledCompletion.Rent<bool>(runContinuationsAsynchronously: false);
            return _last.AsValueTask();
        }
    }
}
