using BenchmarkDotNet.Attributes;
using BenchmarkDotNet.Configs;
using Prewire.Pipeline;
using Prewire.Pipeline.ExpressionTree;

namespace Prewire.Benchmarks.Pipeline;

/// <summary>
/// Prewired pipeline vs the expression-tree baseline (Ratio = prewired / expression-tree, per
/// scenario and depth): success path, synchronous and asynchronous throw at the end of the chain,
/// replay (the first step calls next three times), and warm-up (register + build + first invoke).
/// </summary>
[MemoryDiagnoser]
[GroupBenchmarksBy(BenchmarkLogicalGroupRule.ByCategory, BenchmarkLogicalGroupRule.ByParams)]
[CategoriesColumn]
public class PipelineBenchmarks
{
    private readonly BenchContext _context = new();
    private Pipeline<BenchContext> _prewired = null!;
    private Pipeline<BenchContext> _expression = null!;
    private Pipeline<BenchContext> _prewiredSyncThrow = null!;
    private Pipeline<BenchContext> _expressionSyncThrow = null!;
    private Pipeline<BenchContext> _prewiredAsyncThrow = null!;
    private Pipeline<BenchContext> _expressionAsyncThrow = null!;
    private Pipeline<BenchContext> _prewiredReplay = null!;
    private Pipeline<BenchContext> _expressionReplay = null!;

    [Params(10, 20, 40)]
    public int Depth { get; set; }

    [GlobalSetup]
    public void Setup()
    {
        _prewired = Chain(Depth).Build<BenchContext>();
        _expression = Chain(Depth).BuildWithExpressionTrees<BenchContext>();
        _prewiredSyncThrow = Chain(Depth, last: new ThrowSync()).Build<BenchContext>();
        _expressionSyncThrow = Chain(Depth, last: new ThrowSync()).BuildWithExpressionTrees<BenchContext>();
        _prewiredAsyncThrow = Chain(Depth, last: new ThrowAsync()).Build<BenchContext>();
        _expressionAsyncThrow = Chain(Depth, last: new ThrowAsync()).BuildWithExpressionTrees<BenchContext>();
        _prewiredReplay = Chain(Depth, first: new Replay()).Build<BenchContext>();
        _expressionReplay = Chain(Depth, first: new Replay()).BuildWithExpressionTrees<BenchContext>();
    }

    private static PipelineBuilder Chain(int depth, IBehavior<BenchContext, BenchContext>? first = null, IBehavior<BenchContext, BenchContext>? last = null)
    {
        var builder = new PipelineBuilder();
        for (var i = 0; i < depth; i++)
        {
            var behavior = i == 0 && first is not null ? first : i == depth - 1 && last is not null ? last : new Step();
            builder.Register($"step{i}", behavior, "step");
        }
        return builder.Register("end", new End(), "end");
    }

    [Benchmark(Baseline = true), BenchmarkCategory("Success")]
    public ValueTask ExpressionTree_Success() => _expression.Invoke(_context);

    [Benchmark, BenchmarkCategory("Success")]
    public ValueTask Prewired_Success() => _prewired.Invoke(_context);

    [Benchmark(Baseline = true), BenchmarkCategory("SyncThrow")]
    public void ExpressionTree_SyncThrow() => InvokeAndCatch(_expressionSyncThrow);

    [Benchmark, BenchmarkCategory("SyncThrow")]
    public void Prewired_SyncThrow() => InvokeAndCatch(_prewiredSyncThrow);

    [Benchmark(Baseline = true), BenchmarkCategory("AsyncThrow")]
    public Task ExpressionTree_AsyncThrow() => AwaitAndCatch(_expressionAsyncThrow);

    [Benchmark, BenchmarkCategory("AsyncThrow")]
    public Task Prewired_AsyncThrow() => AwaitAndCatch(_prewiredAsyncThrow);

    [Benchmark(Baseline = true), BenchmarkCategory("Replay")]
    public ValueTask ExpressionTree_Replay() => _expressionReplay.Invoke(_context);

    [Benchmark, BenchmarkCategory("Replay")]
    public ValueTask Prewired_Replay() => _prewiredReplay.Invoke(_context);

    [Benchmark(Baseline = true), BenchmarkCategory("Warmup")]
    public ValueTask ExpressionTree_Warmup() => Chain(Depth).BuildWithExpressionTrees<BenchContext>().Invoke(_context);

    [Benchmark, BenchmarkCategory("Warmup")]
    public ValueTask Prewired_Warmup() => Chain(Depth).Build<BenchContext>().Invoke(_context);

    private void InvokeAndCatch(Pipeline<BenchContext> pipeline)
    {
        try
        {
            var task = pipeline.Invoke(_context);
            if (task.IsCompleted) task.GetAwaiter().GetResult();
        }
        catch (InvalidOperationException)
        {
        }
    }

    private async Task AwaitAndCatch(Pipeline<BenchContext> pipeline)
    {
        try
        {
            await pipeline.Invoke(_context).ConfigureAwait(false);
        }
        catch (InvalidOperationException)
        {
        }
    }
}
