using System.Buffers;
using System.Diagnostics;
using System.Text;
using System.Text.Json;
using Prewire.Pipeline;

namespace Prewire.Samples;

/// <summary>
/// The hidden <c>--warmup-report</c> mode: build the app's real pipeline, send one synthetic message
/// through it to an in-process sink (no broker), print one JSON line and exit. The smoke tests run it
/// in the prewired NativeAOT, prewired JIT and expression-tree JIT builds of the same app. The line:
/// <c>{"builder":"prewired","buildMs":0.2,"firstInvokeMs":0.05,"mainToHandledMs":2.9}</c>: build
/// (register, validate, build), the first message through, and both since the top of <c>Main</c>.
/// </summary>
public static class WarmupReport
{
    /// <summary>Builds the pipeline, invokes it once with <paramref name="message"/>, and writes the figures as one JSON line.</summary>
    public static async Task<int> RunAsync<TContext>(Func<Pipeline<TContext>> build, TContext message, TextWriter output)
        where TContext : class, IBehaviorContext
    {
        ArgumentNullException.ThrowIfNull(build);
        ArgumentNullException.ThrowIfNull(output);
        var started = Stopwatch.GetTimestamp();
        var pipeline = build();
        var built = Stopwatch.GetElapsedTime(started);
        await pipeline.Invoke(message).ConfigureAwait(false);
        var invoked = Stopwatch.GetElapsedTime(started) - built;
        var sinceMain = StartupClock.Elapsed;

        // Utf8JsonWriter rather than the serializer: the line is four fields, and the serializer's
        // metadata would add about 280 KB to every console binary for a diagnostics mode.
        var json = new ArrayBufferWriter<byte>(256);
        using (var writer = new Utf8JsonWriter(json))
        {
            writer.WriteStartObject();
            writer.WriteString("builder", pipeline.Builder);
            writer.WriteNumber("buildMs", built.TotalMilliseconds);
            writer.WriteNumber("firstInvokeMs", invoked.TotalMilliseconds);
            writer.WriteNumber("mainToHandledMs", sinceMain.TotalMilliseconds);
            writer.WriteEndObject();
        }
        await output.WriteLineAsync(Encoding.UTF8.GetString(json.WrittenSpan)).ConfigureAwait(false);
        await output.FlushAsync().ConfigureAwait(false);
        return ExitCodes.Success;
    }

    /// <summary>A terminator that takes the message and does nothing: the in-process sink.</summary>
    public sealed class Sink<TContext> : PipelineTerminator<TContext>
        where TContext : class, IBehaviorContext
    {
        /// <inheritdoc />
        protected override Task Terminate(TContext context) => Task.CompletedTask;
    }
}
