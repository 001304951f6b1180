using System.Buffers;
using System.Diagnostics;
using System.Text;
using System.Text.Json;
using Prewire.Messaging;
using Prewire.Pipeline;

namespace Prewire.Samples;

/// <summary>
/// The hidden <c>--warmup-report</c> mode: build the app's real pipeline, send one message through it,
/// print one JSON line and exit. The smoke tests run it in the prewired NativeAOT, prewired JIT and
/// expression-tree JIT builds of the same app. The line:
/// <c>{"builder":"prewired","buildMs":0.2,"firstInvokeMs":0.05,"mainToHandledMs":2.9}</c>: build
/// (register, validate, build), the first message through, and both since the top of <c>Main</c>.
/// With <c>--count N</c> it then sends N messages to warm up and three windows of N measured, one
/// message after another, and adds <c>"messages":N,"allocatedBytes":B</c>: the least the whole process
/// allocated while a window's N went through (<see cref="GC.GetTotalAllocatedBytes(bool)"/>, precise),
/// then each window's bytes and the pool's thread count before the first and after each (<c>windowBytes</c>,
/// <c>poolThreads</c>): a window in which the pool's threads changed is left out of the least
/// (<see cref="SteadyWindows"/>).
/// </summary>
public static class WarmupReport
{
    /// <summary>
    /// Builds the pipeline, invokes it with <paramref name="nextMessage"/>'s message, then 4 to 11 ×
    /// <paramref name="count"/> more, and writes the figures as one JSON line. <paramref name="handled"/>
    /// gives back what a message borrowed once it went through (as the app's own loop does), before it is disposed.
    /// </summary>
    public static async Task<int> RunAsync<TContext>(Func<Pipeline<TContext>> build, Func<TContext> nextMessage, int count, TextWriter output, Action<TContext>? handled = null)
        where TContext : class, IBehaviorContext
    {
        ArgumentNullException.ThrowIfNull(build);
        ArgumentNullException.ThrowIfNull(nextMessage);
        ArgumentNullException.ThrowIfNull(output);
        var started = Stopwatch.GetTimestamp();
        var pipeline = build();
        var built = Stopwatch.GetElapsedTime(started);
        await SendAsync(1).ConfigureAwait(false);
        var invoked = Stopwatch.GetElapsedTime(started) - built;
        var sinceMain = StartupClock.Elapsed;

        SteadyWindows? windows = null;
        if (count > 0)
        {
            // The warm-up fills what steady state reuses: pools, pipe segments, tiered code (JIT). Then
            // the least of (at least) three windows: one can hold a one-off (a pipe reaching a new
            // high-water mark, a thread the pool adds), while a cost per message is in every window.
            await SendAsync(count).ConfigureAwait(false);
            windows = new SteadyWindows(ThreadPool.ThreadCount);
            while (!windows.Enough)
            {
                var before = GC.GetTotalAllocatedBytes(precise: true);
                await SendAsync(count).ConfigureAwait(false);
                windows.Add(GC.GetTotalAllocatedBytes(precise: true) - before, ThreadPool.ThreadCount);
            }
        }

        // Utf8JsonWriter rather than the serializer: the line is a few fields, and the serializer's
        // metadata would add about 280 KB to every console binary for a diagnostics mode.
        var json = new ArrayBufferWriter<byte>(256);
        using (var writer = new Utf8JsonWriter(json))
        {
            writer.WriteStartObject();
            writer.WriteString("builder", pipeline.Builder);
            writer.WriteNumber("buildMs", built.TotalMilliseconds);
            writer.WriteNumber("firstInvokeMs", invoked.TotalMilliseconds);
            writer.WriteNumber("mainToHandledMs", sinceMain.TotalMilliseconds);
            if (windows is not null)
            {
                writer.WriteNumber("messages", count);
                writer.WriteNumber("allocatedBytes", windows.Least);
                WriteArray(writer, "windowBytes", windows.Bytes);
                WriteArray(writer, "poolThreads", windows.PoolThreads);
            }
            writer.WriteEndObject();
        }
        await output.WriteLineAsync(Encoding.UTF8.GetString(json.WrittenSpan)).ConfigureAwait(false);
        await output.FlushAsync().ConfigureAwait(false);
        return ExitCodes.Success;

        // One loop for every batch, so a pending message costs no state machine of its own (one per
        // batch: well under a byte per message). A message that holds pooled memory gives it back once
        // through, as the apps' own loops do.
        async Task SendAsync(int messages)
        {
            for (var i = 0; i < messages; i++)
            {
                var message = nextMessage();
                await pipeline.Invoke(message).ConfigureAwait(false);
                handled?.Invoke(message);
                (message as IDisposable)?.Dispose();
            }
        }
    }

    /// <summary>A terminator that takes the message and does nothing: the in-process sink.</summary>
    public sealed class Sink<TContext> : PipelineTerminator<TContext>
        where TContext : class, IBehaviorContext
    {
        /// <inheritdoc />
        protected override ValueTask Terminate(TContext context) => default;
    }

    private static void WriteArray(Utf8JsonWriter writer, string name, IReadOnlyList<long> numbers)
    {
        writer.WriteStartArray(name);
        foreach (var n in numbers) writer.WriteNumberValue(n);
        writer.WriteEndArray();
    }

    /// <summary>The dead-letter queue of an in-process run: none, since every warm-up message is handled.</summary>
    public static IDeadLetterQueue NoDeadLetters { get; } = new NoDeadLetterQueue();

    private sealed class NoDeadLetterQueue : IDeadLetterQueue
    {
        public Task SendAsync(TransportReceiveContext message, Exception failure, int attempts) =>
            throw new InvalidOperationException($"a warm-up message failed: {failure?.Message}", failure);
    }
}
