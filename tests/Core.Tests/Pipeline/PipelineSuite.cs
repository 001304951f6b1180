using Prewire.Pipeline.ExpressionTree;

namespace Prewire.Pipeline;

/// <summary>The prewired builder against the shared suite.</summary>
public sealed class PrewiredPipelineTests : PipelineSuite
{
    protected override Pipeline<T> Build<T>(PipelineBuilder builder) => builder.Build<T>();

    [Fact]
    public async Task Exceptions_carry_no_invoker_frames_sync_or_async()
    {
        var builder = Chain(depth: 10).Register("throw", new Inline<RootContext>(static (_, _) => throw new InvalidOperationException("sync")), "throws").Register("end", new EndRoot(), "ends");
        var sync = await Assert.ThrowsAsync<InvalidOperationException>(async () => await Build<RootContext>(builder).Invoke(new RootContext()));

        var asyncBuilder = Chain(depth: 10).Register("throw", new Inline<RootContext>(static async (_, _) => { await Task.Yield(); throw new InvalidOperationException("async"); }), "throws").Register("end", new EndRoot(), "ends");
        var async = await Assert.ThrowsAsync<InvalidOperationException>(async () => await Build<RootContext>(asyncBuilder).Invoke(new RootContext()));

        foreach (var e in new[] { sync, async })
        {
            Assert.DoesNotContain("BehaviorNode", e.StackTrace, StringComparison.Ordinal);
            Assert.DoesNotContain("Prewire.Pipeline.Internal", e.StackTrace, StringComparison.Ordinal);
            Assert.DoesNotContain("Continuation", e.StackTrace, StringComparison.Ordinal);
        }
    }
}

/// <summary>The expression-tree baseline against the same suite: both must behave identically.</summary>
public sealed class ExpressionTreePipelineTests : PipelineSuite
{
    protected override Pipeline<T> Build<T>(PipelineBuilder builder) => builder.BuildWithExpressionTrees<T>();
}

/// <summary>Semantics every pipeline builder must have; run once per builder.</summary>
public abstract class PipelineSuite
{
    protected abstract Pipeline<T> Build<T>(PipelineBuilder builder)
        where T : class, IBehaviorContext;

    protected static PipelineBuilder Chain(int depth)
    {
        var builder = new PipelineBuilder();
        for (var i = 0; i < depth; i++) builder.Register($"b{i}", new Tracing($"b{i}"), $"behavior {i}");
        return builder;
    }

    [Fact]
    public async Task Steps_run_in_registration_order_and_the_terminator_last()
    {
        var pipeline = Build<RootContext>(Chain(3).Register("end", new EndRoot(), "ends"));
        var context = new RootContext();

        await pipeline.Invoke(context);

        Assert.Equal(["b0", "b1", "b2", "end"], context.Trace);
    }

    [Fact]
    public async Task Connectors_change_the_context_and_child_contexts_inherit_the_bag()
    {
        var seenInGrandchild = "";
        var pipeline = Build<RootContext>(new PipelineBuilder()
            .Register("set", new Inline<RootContext>((c, next) => { c.Extensions.Set("from-root"); return next(c); }), "sets a value")
            .Register("to-child", new ToChild(), "root to child")
            .Register("shadow", new Inline<ChildContext>((c, next) => { c.Extensions.Set(42); return next(c); }), "child-only value")
            .Register("to-grandchild", new ToGrandchild(), "child to grandchild")
            .Register("read", new Inline<GrandchildContext>((c, next) => { seenInGrandchild = c.Extensions.Get<string>(); return next(c); }), "reads it")
            .Register("end", new EndGrandchild(), "ends"));
        var context = new RootContext();

        await pipeline.Invoke(context);

        Assert.Equal(["to-child", "to-grandchild", "end-grandchild"], context.Trace);
        Assert.Equal("from-root", seenInGrandchild);
        Assert.False(context.Extensions.TryGet<int>(out _), "a child's write must not reach the parent");
    }

    [Fact]
    public async Task A_fork_runs_its_pipeline_then_continues()
    {
        var fork = Build<ChildContext>(new PipelineBuilder()
            .Register("fork-step", new Inline<ChildContext>((c, next) => { c.Trace.Add("fork-step"); return next(c); }), "in the fork")
            .Register("fork-end", new Ending<ChildContext>(c => c.Trace.Add("fork-end")), "ends the fork"));
        var pipeline = Build<RootContext>(Chain(1)
            .Register("fork", new ForkToChild(fork), "forks")
            .Register("end", new EndRoot(), "ends"));
        var context = new RootContext();

        await pipeline.Invoke(context);

        Assert.Equal(["b0", "fork-step", "fork-end", "end"], context.Trace);
        Assert.Equal(PipelineStepKind.Fork, pipeline.Steps[1].Kind);
    }

    [Fact]
    public async Task Next_can_be_replayed()
    {
        var end = new EndRoot();
        var pipeline = Build<RootContext>(new PipelineBuilder()
            .Register("replay", new Inline<RootContext>(async (c, next) => { for (var i = 0; i < 3; i++) await next(c); }), "calls next 3 times")
            .Register("b", new Tracing("b"), "traces")
            .Register("end", end, "ends"));
        var context = new RootContext();

        await pipeline.Invoke(context);

        Assert.Equal(3, end.Calls);
        Assert.Equal(["b", "end", "b", "end", "b", "end"], context.Trace);
    }

    [Fact]
    public async Task The_single_context_base_passes_an_argument_free_next_that_can_be_replayed()
    {
        var pipeline = Build<RootContext>(new PipelineBuilder()
            .Register("outer", new Wrapping("outer"), "wraps")
            .Register("retry", new Retry(times: 2), "runs next twice")
            .Register("inner", new Wrapping("inner"), "wraps")
            .Register("end", new EndRoot(), "ends"));
        var context = new RootContext();

        await pipeline.Invoke(context);

        Assert.Equal(["outer:before", "inner:before", "end", "inner:after", "inner:before", "end", "inner:after", "outer:after"], context.Trace);
    }

    [Fact]
    public async Task Calling_next_after_the_behavior_completed_throws()
    {
        var leaky = new Leaky();
        var pipeline = Build<RootContext>(new PipelineBuilder().Register("leaky", leaky, "keeps next").Register("end", new EndRoot(), "ends"));
        await pipeline.Invoke(new RootContext());

        var e = await Assert.ThrowsAsync<InvalidOperationException>(async () => await leaky.Kept!());
        Assert.Contains("after the behavior's task completed", e.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Replace_insert_before_and_insert_after_place_steps_by_id()
    {
        var pipeline = Build<RootContext>(Chain(3)
            .Replace("b1", new Tracing("B1"))
            .InsertBefore("b0", "first", new Tracing("first"), "goes first")
            .InsertAfter("b2", "last", new Tracing("last"), "goes last")
            .Register("end", new EndRoot(), "ends"));
        var context = new RootContext();

        await pipeline.Invoke(context);

        Assert.Equal(["first", "b0", "B1", "b2", "last", "end"], context.Trace);
        Assert.Equal("behavior 1", pipeline.Steps[2].Description);
    }

    [Fact]
    public async Task A_synchronous_throw_surfaces_unchanged()
    {
        var pipeline = Build<RootContext>(Chain(5)
            .Register("throw", new Inline<RootContext>(static (_, _) => throw new FormatException("bad")), "throws")
            .Register("end", new EndRoot(), "ends"));

        var e = await Assert.ThrowsAsync<FormatException>(async () => await pipeline.Invoke(new RootContext()));
        Assert.Equal("bad", e.Message);
    }

    [Fact]
    public async Task An_asynchronous_throw_from_deep_inside_surfaces_unchanged()
    {
        var end = new EndRoot();
        var pipeline = Build<RootContext>(Chain(40)
            .Register("throw", new Inline<RootContext>(static async (_, _) => { await Task.Yield(); throw new FormatException("deep"); }), "throws")
            .Register("end", end, "ends"));
        var context = new RootContext();

        var e = await Assert.ThrowsAsync<FormatException>(async () => await pipeline.Invoke(context));
        Assert.Equal("deep", e.Message);
        Assert.Equal(40, context.Trace.Count);
        Assert.Equal(0, end.Calls);
    }

    [Fact]
    public async Task A_behavior_can_catch_what_next_throws()
    {
        var caught = "";
        var pipeline = Build<RootContext>(new PipelineBuilder()
            .Register("catch", new Inline<RootContext>(async (c, next) => { try { await next(c); } catch (FormatException e) { caught = e.Message; } }), "catches")
            .Register("throw", new Inline<RootContext>(static (_, _) => throw new FormatException("handled")), "throws")
            .Register("end", new EndRoot(), "ends"));

        await pipeline.Invoke(new RootContext());

        Assert.Equal("handled", caught);
    }

    [Fact]
    public async Task The_cancellation_token_flows_to_child_contexts_and_cancellation_surfaces()
    {
        using var cts = new CancellationTokenSource();
        CancellationToken seen = default;
        var pipeline = Build<RootContext>(new PipelineBuilder()
            .Register("to-child", new ToChild(), "root to child")
            .Register("observe", new Inline<ChildContext>((c, next) => { seen = c.CancellationToken; c.CancellationToken.ThrowIfCancellationRequested(); return next(c); }), "observes")
            .Register("to-grandchild", new ToGrandchild(), "child to grandchild")
            .Register("end", new EndGrandchild(), "ends"));

        await pipeline.Invoke(new RootContext(cts.Token));
        Assert.Equal(cts.Token, seen);

        await cts.CancelAsync();
        await Assert.ThrowsAnyAsync<OperationCanceledException>(async () => await pipeline.Invoke(new RootContext(cts.Token)));
    }

    [Fact]
    public void Describe_lists_stages_steps_types_and_descriptions()
    {
        var pipeline = Build<RootContext>(new PipelineBuilder()
            .Register("trace", new Tracing("t"), "traces the message")
            .Register("to-child", new ToChild(), "root to child")
            .Register("to-grandchild", new ToGrandchild(), "child to grandchild")
            .Register("end", new EndGrandchild(), "ends"));

        var text = pipeline.Describe();

        Assert.Contains($"Pipeline<RootContext> ({pipeline.Builder}, 4 steps)", text, StringComparison.Ordinal);
        Assert.Contains("stage RootContext", text, StringComparison.Ordinal);
        Assert.Contains("stage ChildContext", text, StringComparison.Ordinal);
        Assert.Contains("stage GrandchildContext", text, StringComparison.Ordinal);
        Assert.Matches(@"trace\s+Tracing\s+traces the message", text);
        Assert.Contains("root to child -> ChildContext", text, StringComparison.Ordinal);
        Assert.Contains("ends (end)", text, StringComparison.Ordinal);
    }

    [Fact]
    public void Validation_reports_an_unknown_step_for_replace_and_inserts()
    {
        var e = Assert.Throws<PipelineValidationException>(() => Build<RootContext>(Chain(1)
            .Replace("nope", new Tracing("x"))
            .InsertBefore("missing", "x1", new Tracing("x"), "x")
            .InsertAfter("gone", "x2", new Tracing("x"), "x")
            .Register("end", new EndRoot(), "ends")));

        Assert.Equal(3, e.Problems.Count);
        Assert.Contains("cannot replace step 'nope'", e.Message, StringComparison.Ordinal);
        Assert.Contains("cannot insert 'x1' before step 'missing'", e.Message, StringComparison.Ordinal);
        Assert.Contains("cannot insert 'x2' after step 'gone'", e.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Validation_reports_duplicate_ids()
    {
        var e = Assert.Throws<PipelineValidationException>(() => Build<RootContext>(Chain(2).Register("b1", new Tracing("again"), "dup").Register("end", new EndRoot(), "ends")));
        Assert.Contains("step id 'b1' is registered 2 times", Assert.Single(e.Problems), StringComparison.Ordinal);
    }

    [Fact]
    public void Validation_reports_a_connector_whose_types_do_not_chain()
    {
        var e = Assert.Throws<PipelineValidationException>(() => Build<RootContext>(new PipelineBuilder()
            .Register("to-child", new ToChild(), "root to child")
            .Register("wrong", new Tracing("root again"), "expects root")
            .Register("end", new EndRoot(), "ends")));
        Assert.Contains("step 'to-child' continues with ChildContext, but the next step 'wrong' takes RootContext", Assert.Single(e.Problems), StringComparison.Ordinal);
    }

    [Fact]
    public void Validation_reports_steps_after_a_terminator()
    {
        var e = Assert.Throws<PipelineValidationException>(() => Build<RootContext>(Chain(1).Register("end", new EndRoot(), "ends").Register("late", new Tracing("late"), "too late")));
        Assert.Contains("step 'late' comes after the terminator 'end'", Assert.Single(e.Problems), StringComparison.Ordinal);
    }

    [Fact]
    public void Validation_reports_a_missing_terminator()
    {
        var e = Assert.Throws<PipelineValidationException>(() => Build<RootContext>(Chain(2)));
        Assert.Contains("no terminator: the last step 'b1'", Assert.Single(e.Problems), StringComparison.Ordinal);
    }

    [Fact]
    public void Validation_reports_a_first_step_that_does_not_take_the_root_context()
    {
        var e = Assert.Throws<PipelineValidationException>(() => Build<ChildContext>(Chain(1).Register("end", new EndRoot(), "ends")));
        Assert.Contains("the first step 'b0' takes RootContext, but the pipeline starts with ChildContext", Assert.Single(e.Problems), StringComparison.Ordinal);
    }

    [Fact]
    public void Validation_reports_an_empty_pipeline()
    {
        var e = Assert.Throws<PipelineValidationException>(() => Build<RootContext>(new PipelineBuilder()));
        Assert.Contains("no steps are registered", Assert.Single(e.Problems), StringComparison.Ordinal);
    }

    [Fact]
    public void Validation_lists_every_problem_at_once()
    {
        var e = Assert.Throws<PipelineValidationException>(() => Build<RootContext>(Chain(2).Register("b0", new Tracing("dup"), "dup").Replace("nope", new Tracing("x"))));
        Assert.Equal(3, e.Problems.Count);
        Assert.StartsWith("Invalid pipeline (3 problems):", e.Message, StringComparison.Ordinal);
    }

    private sealed class Retry(int times) : Behavior<RootContext>
    {
        public override async ValueTask Invoke(RootContext context, Func<ValueTask> next)
        {
            for (var i = 0; i < times; i++) await next();
        }
    }

    private sealed class Leaky : Behavior<RootContext>
    {
        public Func<ValueTask>? Kept { get; private set; }

        public override ValueTask Invoke(RootContext context, Func<ValueTask> next)
        {
            Kept = next;
            return next();
        }
    }

    private sealed class ForkToChild(Pipeline<ChildContext> fork) : ForkConnector<RootContext, ChildContext>(fork)
    {
        protected override ChildContext CreateForkContext(RootContext context) => new(context);
    }

    private sealed class Ending<T>(Action<T> action) : PipelineTerminator<T>
        where T : class, IBehaviorContext
    {
        protected override ValueTask Terminate(T context)
        {
            action(context);
            return default;
        }
    }
}
