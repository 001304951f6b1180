using System.Runtime.CompilerServices;

namespace Prewire.Tasks;

/// <summary>
/// An awaited-incomplete pooled operation allocates nothing, measured process-wide and precisely,
/// in the non-parallel collection so no other test runs meanwhile.
/// </summary>
[Collection(nameof(Prewire.Pipeline.AllocationTests))]
public sealed class PooledCompletionAllocationTests
{
    [Fact]
    public async Task An_awaited_incomplete_operation_allocates_zero_bytes_process_wide()
    {
        using var completer = new Completer();

        // Warm-up until tiered compilation and the pools have settled.
        for (var round = 0; round < 6; round++) await MeasureAsync(completer, 20_000);

        // Two windows of different length: whatever the measurement itself costs is the same in both
        // (a few bytes, once per window, for the awaiting method's own frame), so the difference is
        // what the extra 40,000 operations allocated. The figure is the process's, so another thread
        // (the test runner's) can add to a window; the least of each length, over as many pairs as it
        // takes (AllocationWindows' rule), leaves that out, and a cost per operation is in every long one.
        var (shortWindow, longWindow) = (long.MaxValue, long.MaxValue);
        for (var pair = 0; pair < AllocationWindows.MaxPairs && (pair == 0 || longWindow - shortWindow != 0); pair++)
        {
            var (shortIncomplete, shortBytes) = await MeasureAsync(completer, 10_000);
            var (longIncomplete, longBytes) = await MeasureAsync(completer, 50_000);
            Assert.True(shortIncomplete >= 9_999 && longIncomplete >= 49_999, $"operations must be pending when awaited: {shortIncomplete}, {longIncomplete}");
            (shortWindow, longWindow) = (Math.Min(shortWindow, shortBytes), Math.Min(longWindow, longBytes));
        }

        Assert.True(longWindow - shortWindow == 0, $"40,000 more awaited-incomplete operations allocated {longWindow - shortWindow} bytes process-wide ({shortWindow} B for 10,000, {longWindow} B for 50,000)");
    }

    // Pooling builder, so the awaiting method's state machine does not allocate per suspension;
    // the measurement is taken inside it, around the loop, on the completer's thread.
    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder<>))]
    private static async ValueTask<(int Incomplete, long Allocated)> MeasureAsync(Completer completer, int count)
    {
        var before = GC.GetTotalAllocatedBytes(precise: true);
        var incomplete = await RunAsync(completer, count).ConfigureAwait(false);
        return (incomplete, GC.GetTotalAllocatedBytes(precise: true) - before);
    }

    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder<>))]
    private static async ValueTask<int> RunAsync(Completer completer, int count)
    {
        var incomplete = 0;
        for (var i = 0; i < count; i++)
        {
            var operation = PooledCompletion.Rent<int>(runContinuationsAsynchronously: false);
            var task = operation.Task;
            completer.Post(operation, i);
            if (!task.IsCompleted) incomplete++;
            if (await task.ConfigureAwait(false) != i) throw new InvalidOperationException("wrong result");
        }
        return incomplete;
    }

    /// <summary>A dedicated thread that completes posted operations; continuations run inline on it.</summary>
    private sealed class Completer : IDisposable
    {
        private readonly Thread _thread;
        private PooledCompletion<int> _operation;
        private int _value;
        private volatile bool _pending;
        private volatile bool _stopped;

        public Completer()
        {
            _thread = new Thread(Run) { IsBackground = true, Name = "completer" };
            _thread.Start();
        }

        public void Post(PooledCompletion<int> operation, int value)
        {
            _operation = operation;
            _value = value;
            _pending = true;
        }

        public void Dispose()
        {
            _stopped = true;
            // The test resumes on this very thread (continuations run inline): then there is nothing to wait for.
            if (Thread.CurrentThread != _thread) _thread.Join();
        }

        private void Run()
        {
            var spin = new SpinWait();
            while (!_stopped)
            {
                if (!_pending)
                {
                    spin.SpinOnce(sleep1Threshold: -1);
                    continue;
                }
                _pending = false;
                _operation.TrySetResult(_value);
            }
        }
    }
}
