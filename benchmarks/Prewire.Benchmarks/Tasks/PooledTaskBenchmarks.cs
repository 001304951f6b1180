using System.Runtime.CompilerServices;
using BenchmarkDotNet.Attributes;
using Prewire.Tasks;

namespace Prewire.Benchmarks.Tasks;

/// <summary>
/// An operation that is still pending when awaited (it completes on the thread pool), awaited 100
/// times per invocation: async Task&lt;T&gt; (baseline), async ValueTask&lt;T&gt;, async ValueTask&lt;T&gt;
/// with PoolingAsyncValueTaskMethodBuilder, and a PooledCompletion completed from a reused
/// thread-pool work item.
/// </summary>
[MemoryDiagnoser]
public class PooledTaskBenchmarks
{
    private const int Operations = 100;
    private readonly CompleteLater _completeLater = new();

    [Benchmark(Baseline = true, OperationsPerInvoke = Operations)]
    public async Task<int> TaskOfT_Yield()
    {
        var sum = 0;
        for (var i = 0; i < Operations; i++) sum += await TaskYield(i).ConfigureAwait(false);
        return sum;
    }

    [Benchmark(OperationsPerInvoke = Operations)]
    public async Task<int> ValueTaskOfT_Yield()
    {
        var sum = 0;
        for (var i = 0; i < Operations; i++) sum += await ValueTaskYield(i).ConfigureAwait(false);
        return sum;
    }

    [Benchmark(OperationsPerInvoke = Operations)]
    public async Task<int> PoolingBuilder_Yield()
    {
        var sum = 0;
        for (var i = 0; i < Operations; i++) sum += await PoolingYield(i).ConfigureAwait(false);
        return sum;
    }

    [Benchmark(OperationsPerInvoke = Operations)]
    public async Task<int> PooledCompletion_ThreadPool()
    {
        var sum = 0;
        for (var i = 0; i < Operations; i++) sum += await _completeLater.Start(i).ConfigureAwait(false);
        return sum;
    }

    private static async Task<int> TaskYield(int value)
    {
        await Task.Yield();
        return value;
    }

    private static async ValueTask<int> ValueTaskYield(int value)
    {
        await Task.Yield();
        return value;
    }

    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder<>))]
    private static async ValueTask<int> PoolingYield(int value)
    {
        await Task.Yield();
        return value;
    }

    /// <summary>Starts a pooled operation and completes it from the thread pool, with one reused work item.</summary>
    private sealed class CompleteLater : IThreadPoolWorkItem
    {
        private PooledCompletion<int> _operation;
        private int _value;

        public ValueTask<int> Start(int value)
        {
            _operation = PooledCompletion.Rent<int>(runContinuationsAsynchronously: false);
            _value = value;
            var task = _operation.Task;
            ThreadPool.UnsafeQueueUserWorkItem(this, preferLocal: false);
            return task;
        }

        public void Execute() => _operation.TrySetResult(_value);
    }
}
