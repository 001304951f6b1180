using System.Text.Json;
using Prewire.Messaging;
using Prewire.Samples.Messaging;

namespace Prewire.Samples;

public sealed class WarmupReportTests
{
    [Fact]
    public async Task Prints_one_json_line_with_the_builder_and_its_timings_after_the_message_was_handled()
    {
        var (handled, json) = await RunAsync(count: 0);

        Assert.Equal(1, handled);
        Assert.Equal("prewired", json.RootElement.GetProperty("builder").GetString());
        foreach (var figure in new[] { "buildMs", "firstInvokeMs", "mainToHandledMs" })
            Assert.True(json.RootElement.GetProperty(figure).GetDouble() >= 0, figure);
        Assert.False(json.RootElement.TryGetProperty("allocatedBytes", out _));
    }

    [Fact]
    public async Task With_a_count_it_warms_up_with_that_many_then_measures_three_windows_of_that_many()
    {
        var (handled, json) = await RunAsync(count: 50);

        Assert.Equal(1 + 50 + (3 * 50), handled);
        Assert.Equal(50, json.RootElement.GetProperty("messages").GetInt32());
        // Each measured message makes at least its three contexts.
        Assert.True(json.RootElement.GetProperty("allocatedBytes").GetInt64() >= 50 * 3 * 24);
    }

    private static async Task<(int Handled, JsonDocument Json)> RunAsync(int count)
    {
        var handled = 0;
        var output = new StringWriter();
        var exit = await WarmupReport.RunAsync(
            () => SamplePipelines.Incoming(_ => { handled++; return Task.CompletedTask; }, WarmupReport.NoDeadLetters, new RecentMessageIds(0), 1, Serilog.Core.Logger.None)
                .Build<TransportReceiveContext>(),
            () => new TransportReceiveContext("m", new Dictionary<string, string>(), "hi"u8.ToArray()), count, output);

        Assert.Equal(ExitCodes.Success, exit);
        var line = Assert.Single(output.ToString().Split('\n', StringSplitOptions.RemoveEmptyEntries));
        return (handled, JsonDocument.Parse(line));
    }
}
