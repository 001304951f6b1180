using System.Text.Json;

namespace Prewire.Samples;

public sealed class RunReportTests
{
    [Fact]
    public void The_JSON_report_is_one_object_with_the_common_figures_then_the_apps_own()
    {
        // 64 B per message on a counter of the test's own: the process's would count other tests too.
        var allocated = 1_000L;
        var report = new RunReport(requested: 100, latencyName: "confirm") { AllocatedBytes = () => allocated };
        for (var i = 1; i <= 100; i++)
        {
            report.Latency.Record(TimeSpan.FromMilliseconds(2));
            allocated += 64;
            report.Done(i);
        }
        var output = new StringWriter();
        var peakBefore = PeakRssMb();

        report.Write(output, json: true, done: 100, ("client", "Prewire"), ("refused", 0));

        var line = Assert.Single(output.ToString().Split('\n', StringSplitOptions.RemoveEmptyEntries));
        using var json = JsonDocument.Parse(line);
        var root = json.RootElement;
        Assert.Equal(["messages", "requested", "seconds", "msgsPerSecond", "confirmP50Ms", "confirmP99Ms", "bytesPerMessage", "peakRssMb", "startupMs", "client", "refused"],
            root.EnumerateObject().Select(p => p.Name));
        Assert.Equal((100, "Prewire", 0), (root.GetProperty("messages").GetInt32(), root.GetProperty("client").GetString(), root.GetProperty("refused").GetInt32()));
        Assert.InRange(root.GetProperty("confirmP99Ms").GetDouble(), 2 * 0.97, 2 * 1.03);
        // VmHWM only grows: the report's reading lies between the test's two.
        Assert.InRange(root.GetProperty("peakRssMb").GetDouble(), peakBefore, PeakRssMb());
        // Warm after the first tenth (10 messages): 90 more at 64 B each.
        Assert.Equal(64.0, root.GetProperty("bytesPerMessage").GetDouble());
    }

    private static double PeakRssMb() =>
        Math.Round(long.Parse(File.ReadLines("/proc/self/status").First(l => l.StartsWith("VmHWM:", StringComparison.Ordinal))[6..].Trim().TrimEnd('B', 'k').Trim(), System.Globalization.CultureInfo.InvariantCulture) / 1024.0, 1);

    [Fact]
    public void Without_messages_the_figures_that_need_them_are_null_not_made_up()
    {
        var output = new StringWriter();
        new RunReport(requested: 10, latencyName: "endToEnd").Write(output, json: true, done: 0);

        using var json = JsonDocument.Parse(output.ToString());
        Assert.Equal(JsonValueKind.Null, json.RootElement.GetProperty("endToEndP50Ms").ValueKind);
        Assert.Equal(JsonValueKind.Null, json.RootElement.GetProperty("bytesPerMessage").ValueKind);
    }

    [Fact]
    public void The_text_report_is_a_line_per_figure_with_a_dash_for_none()
    {
        var output = new StringWriter();
        new RunReport(requested: 10, latencyName: "confirm").Write(output, json: false, done: 0, ("reconnects", 2));

        var lines = output.ToString().Split('\n', StringSplitOptions.RemoveEmptyEntries);
        Assert.Contains(lines, l => l.Trim() is var t && t.StartsWith("confirmP99Ms", StringComparison.Ordinal) && t.EndsWith(" -", StringComparison.Ordinal));
        Assert.Contains(lines, l => l.Trim() is var t && t.StartsWith("reconnects", StringComparison.Ordinal) && t.EndsWith(" 2", StringComparison.Ordinal));
    }

    [Fact]
    public void A_worker_has_no_requested_count_and_a_heap_check_reads_once_warm_and_at_the_end()
    {
        var allocated = 0L;
        var report = new RunReport(requested: null, latencyName: "endToEnd") { HeapCheck = true, AllocatedBytes = () => allocated };
        for (var i = 1; i <= 1_500; i++)
        {
            allocated += 40;
            report.Done(i);
        }
        var output = new StringWriter();

        report.Write(output, json: true, done: 1_500);

        using var json = JsonDocument.Parse(output.ToString());
        var root = json.RootElement;
        Assert.Equal(JsonValueKind.Null, root.GetProperty("requested").ValueKind);
        // Warm after 1,000 messages: the heap was measured then, and bytes per message are counted from there.
        Assert.Equal([1_000L, 1_500L], root.GetProperty("readingsAt").EnumerateArray().Select(e => e.GetInt64()));
        Assert.Equal([40_000L, 60_000L], root.GetProperty("allocatedBytes").EnumerateArray().Select(e => e.GetInt64()));
        Assert.All(root.GetProperty("heapBytes").EnumerateArray(), e => Assert.True(e.GetInt64() > 0, output.ToString()));
        Assert.Equal(40.0, root.GetProperty("bytesPerMessage").GetDouble());
    }

    [Fact]
    public void With_a_count_the_last_heap_is_taken_at_the_last_message_not_when_the_report_is_written()
    {
        var report = new RunReport(requested: 100, latencyName: "confirm") { HeapCheck = true };
        for (var i = 1; i <= 100; i++) report.Done(i);
        // Made after the last message and alive while the report is written: not in the run's heap.
        var kept = new byte[128 * 1024 * 1024];
        var output = new StringWriter();

        report.Write(output, json: true, done: 100);

        GC.KeepAlive(kept);
        using var json = JsonDocument.Parse(output.ToString());
        var heap = json.RootElement.GetProperty("heapBytes");
        Assert.InRange(heap[heap.GetArrayLength() - 1].GetInt64(), 1, kept.Length - 1);
    }

    [Fact]
    public void A_counted_run_is_read_at_each_25th_and_at_its_last_message()
    {
        var report = new RunReport(requested: 105, latencyName: "confirm") { HeapCheck = true };
        for (var i = 1; i <= 105; i++) report.Done(i);
        var output = new StringWriter();

        report.Write(output, json: true, done: 105);

        using var json = JsonDocument.Parse(output.ToString());
        Assert.Equal([.. Enumerable.Range(1, 24).Select(i => 4L * i), 105], json.RootElement.GetProperty("readingsAt").EnumerateArray().Select(e => e.GetInt64()));
        Assert.Equal(25, json.RootElement.GetProperty("heapBytes").GetArrayLength());
    }
}
