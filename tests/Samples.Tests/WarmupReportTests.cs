using System.Buffers;
using System.Text.Json;
using Prewire.Messaging;
using Prewire.Samples.Messaging;

namespace Prewire.Samples;

// Alone: the allocation figure is the process's, so a test class running beside it would be counted too.
[Collection(nameof(WarmupReportTests))]
public sealed class WarmupReportTests
{
    [Fact]
    public async Task Prints_one_json_line_with_the_builder_and_its_timings_after_the_message_was_handled()
    {
        StartupClock.Start();
        var (handled, json) = await RunAsync(count: 0);

        Assert.Equal(1, handled);
        Assert.Equal("prewired", json.RootElement.GetProperty("builder").GetString());
        var (build, invoke, sinceMain) = (json.RootElement.GetProperty("buildMs").GetDouble(), json.RootElement.GetProperty("firstInvokeMs").GetDouble(), json.RootElement.GetProperty("mainToHandledMs").GetDouble());
        // Both steps took time, and both lie within the time since the clock started (before the run).
        Assert.True(build > 0 && invoke > 0, $"build {build} ms, first invoke {invoke} ms");
        Assert.True(sinceMain >= build + invoke, $"since main {sinceMain} ms < build {build} + first invoke {invoke}");
        Assert.False(json.RootElement.TryGetProperty("allocatedBytes", out _));
    }

    [Fact]
    public async Task With_a_count_it_warms_up_with_that_many_then_measures_three_windows_of_that_many()
    {
        // The figure is the whole process's, and another of its threads (the test runner's, reporting
        // the test before, is the likely one) can allocate while a window of 50 runs, about 50 µs: one CI
        // run saw 704 B more in each of the three windows of one report. Another thread only ever adds
        // bytes, so the least of five reports, spaced apart, is the pipeline's own, and a byte more per
        // message is in every one.
        var least = long.MaxValue;
        for (var report = 0; report < 5; report++)
        {
            var (handled, json) = await RunAsync(count: 50);

            // Three windows, or more when the pool's thread count moved in one (a thread retiring after
            // 20 s idle, or one added).
            var windows = json.RootElement.GetProperty("windowBytes").GetArrayLength();
            Assert.InRange(windows, SteadyWindows.Wanted, SteadyWindows.Most);
            Assert.Equal(1 + 50 + (windows * 50), handled);
            Assert.Equal(50, json.RootElement.GetProperty("messages").GetInt32());
            least = Math.Min(least, json.RootElement.GetProperty("allocatedBytes").GetInt64());
            await Task.Delay(TimeSpan.FromMilliseconds(20), TestContext.Current.CancellationToken);
        }

        // 144 B a message: what the test makes for each (its headers dictionary, 80, and body array, 32)
        // and the decoded text (32). Measured; a change here is a change in what the pipeline allocates,
        // to be made on purpose (the last: -240 B when the physical and logical contexts came to be kept
        // with the transport's, rented and returned here as a receiver does).
        Assert.Equal(50 * 144, least);
    }

    private static async Task<(int Handled, JsonDocument Json)> RunAsync(int count)
    {
        var handled = 0;
        var output = new StringWriter();
        var exit = await WarmupReport.RunAsync(
            () => SamplePipelines.Incoming(_ => { handled++; return Task.CompletedTask; }, WarmupReport.NoDeadLetters, new RecentMessageIds(0), 1, Serilog.Core.Logger.None)
                .Build<TransportReceiveContext>(),
            () => TransportReceiveContext.Rent("m", new Dictionary<string, string>(), new ReadOnlySequence<byte>("hi"u8.ToArray())), count, output, handled: context => context.Return());

        Assert.Equal(ExitCodes.Success, exit);
        var line = Assert.Single(output.ToString().Split('\n', StringSplitOptions.RemoveEmptyEntries));
        return (handled, JsonDocument.Parse(line));
    }
}

[CollectionDefinition(nameof(WarmupReportTests), DisableParallelization = true)]
public sealed class WarmupReportCollection;
