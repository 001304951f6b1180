namespace Prewire.Harness;

/// <summary>
/// <c>benchmarks/soak.sh</c>: many messages Publisher → quorum queue → Consumer (NativeAOT, this host),
/// once per client (both apps on it), both apps with <c>--heap-check</c>: the managed heap after a full
/// collection once warm (a tenth of the run) and at its end. A heap that grows with the messages is a
/// leak; the run fails when either app's grew by more than <see cref="MostGrowth"/>.
/// </summary>
public static class Soak
{
    /// <summary>What the heap may differ by between a tenth of the run and its end: a few KB, not per-message growth.</summary>
    public const long MostGrowth = 16 * 1024;

    public static async Task<int> RunAsync(int count, string broker, TextWriter output)
    {
        ArgumentNullException.ThrowIfNull(output);
        var builds = await AppBuilds.PublishForClientsAsync("soak", [App.Publisher, App.Consumer], Repo.HostRid, PublishMode.Aot, output).ConfigureAwait(false)
            ?? throw new InvalidOperationException("a publish failed (above)");

        var rows = new List<string[]>();
        var grew = false;
        foreach (var client in AppClient.All)
        {
            output.WriteLine($"soak: {count} messages with {client}...");
            var run = await MessagingRun.RunAsync(client, builds[(App.Publisher, client.Build)], builds[(App.Consumer, client.Build)], broker, count, concurrency: 16, both: ["--heap-check"], timeout: TimeSpan.FromMinutes(20)).ConfigureAwait(false);
            foreach (var (app, report) in new[] { ("Publisher", run.Publisher), ("Consumer", run.Consumer) })
            {
                var check = LongRunCheck.Read(app, report);
                var (warm, end) = (check.HeapWarm, check.HeapEnd);
                grew |= end - warm > MostGrowth;
                rows.Add([client.Name, app, $"{report.GetProperty("messages").GetInt64():N0}", $"{warm:N0}", $"{end:N0}", $"{end - warm:+#,0;-#,0;0}", $"{check.Grew} of {check.Intervals}",
                    MessagingRun.Number(report, "bytesPerMessage", "0.0"), MessagingRun.Number(report, "peakRssMb", "0.0 'MB'"), MessagingRun.Number(report, "msgsPerSecond", "0")]);
            }
        }
        Table.Write(output, ["client", "app", "messages", "heap once warm (B)", $"heap at {count:N0} (B)", "growth (B)", "intervals it grew in", "B/msg", "peak RSS", "msgs/s"], rows);
        output.WriteLine(grew ? $"soak: a heap grew by more than {MostGrowth:N0} B" : $"soak: no heap grew by more than {MostGrowth:N0} B");
        return grew ? 1 : 0;
    }
}
