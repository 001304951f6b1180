namespace Prewire.Pipeline;

[CollectionDefinition(nameof(AllocationTests), DisableParallelization = true)]
public sealed class AllocationTests;

/// <summary>
/// Invoking a built prewired pipeline allocates nothing: measured exactly on the invoking thread for a
/// synchronously completing chain, after warm-up, with nothing else running.
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

    // Half plain behaviors, half the single-context base (argument-free next), a stage connector in
    // the middle (its child context made once, so only the engine is measured) and a terminator.
    private static (Pipeline<RootContext>, RootContext, CountingEnd) Build(int depth)
    {
        var context = new RootContext();
        var builder = new PipelineBuilder();
        for (var i = 0; i < depth / 2; i++)
        {
            builder.Register($"plain{i}", new Counting(), "counts");
            builder.Register($"base{i}", new CountingBase(), "counts");
        }
        var end = new CountingEnd();
        builder.Register("to-child", new CachedChild(new ChildContext(context)), "root to child").Register("end", end, "ends");
        return (builder.Build<RootContext>(), context, end);
    }

    private static void Invoke(Pipeline<RootContext> pipeline, RootContext context)
    {
        var task = pipeline.Invoke(context);
        Assert.True(task.IsCompletedSuccessfully);
    }

    private sealed class Counting : IBehavior<RootContext, RootContext>
    {
        private int _calls;

        public int Calls => _calls;

        public Task Invoke(RootContext context, Func<RootContext, Task> next)
        {
            _calls++;
            return next(context);
        }
    }

    private sealed class CountingBase : Behavior<RootContext>
    {
        private int _calls;

        public int Calls => _calls;

        public override Task Invoke(RootContext context, Func<Task> next)
        {
            _calls++;
            return next();
        }
    }

    private sealed class CachedChild(ChildContext child) : StageConnector<RootContext, ChildContext>
    {
        public override Task Invoke(RootContext context, Func<ChildContext, Task> next) => next(child);
    }

    private sealed class CountingEnd : PipelineTerminator<ChildContext>
    {
        public int Calls { get; private set; }

        protected override Task Terminate(ChildContext context)
        {
            Calls++;
            return Task.CompletedTask;
        }
    }
}
