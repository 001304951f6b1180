using System.Text.Json;
using Prewire.Messaging;
using Prewire.Samples.Messaging;

namespace Prewire.Samples;

public sealed class WarmupReportTests
{
    [Fact]
    public async Task Prints_one_json_line_with_the_builder_and_its_timings_after_the_message_was_handled()
    {
        var handled = false;
        var output = new StringWriter();
        var exit = await WarmupReport.RunAsync(
            () => SamplePipelines.Incoming(_ => { handled = true; return Task.CompletedTask; }).Build<TransportReceiveContext>(),
            new TransportReceiveContext("m", new Dictionary<string, string>(), "hi"u8.ToArray()), output);

        Assert.Equal((ExitCodes.Success, true), (exit, handled));
        var line = Assert.Single(output.ToString().Split('\n', StringSplitOptions.RemoveEmptyEntries));
        using var json = JsonDocument.Parse(line);
        Assert.Equal("prewired", json.RootElement.GetProperty("builder").GetString());
        foreach (var figure in new[] { "buildMs", "firstInvokeMs", "mainToHandledMs" })
            Assert.True(json.RootElement.GetProperty(figure).GetDouble() >= 0, figure);
    }
}
