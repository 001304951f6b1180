using System.Text.Json;

namespace Prewire.Testing;

/// <summary>
/// A long, steady run of the published Publisher and Consumer against a broker: <see cref="LongRunCheck.RunMessages"/>
/// to a classic queue of their own (the broker's fastest; what is checked is the apps' heap, not the
/// queue's), 16 publishes in flight, the Consumer draining as they come, both with
/// <c>--json --heap-check</c>. Each must exit 0 having done every message.
/// </summary>
public static class LongRunApps
{
    public static async Task<(LongRunCheck Publisher, LongRunCheck Consumer)> RunAsync(string publisher, string consumer, string rid, string broker, int messages = LongRunCheck.RunMessages)
    {
        var queue = $"long-run.{rid}.{Guid.NewGuid():N}";
        string[] common = ["--uri", broker, "--queue", queue, "--queue-type", "classic", "--count", $"{messages}", "--json", "--heap-check", "--log-level", "Warning"];
        // Under qemu about 3,400 messages a second, natively 7,000 with the broker on the same two cores.
        var timeout = TimeSpan.FromMinutes(Qemu.Emulates(rid) ? 8 : 4);
        await using var consume = AppProcess.Start(consumer, common, rid: rid);
        await consume.WaitForReadyAsync(TimeSpan.FromMinutes(1)).ConfigureAwait(false);
        await using var publish = AppProcess.Start(publisher, [.. common, "--concurrency", "16"], rid: rid);
        return (await CheckAsync("Publisher", publish, messages, timeout).ConfigureAwait(false), await CheckAsync("Consumer", consume, messages, timeout).ConfigureAwait(false));
    }

    private static async Task<LongRunCheck> CheckAsync(string app, AppProcess process, int messages, TimeSpan timeout)
    {
        var exit = await process.WaitForExitAsync(timeout).ConfigureAwait(false);
        var lines = process.Stdout.Split('\n', StringSplitOptions.RemoveEmptyEntries);
        if (exit != 0 || lines.Length == 0)
            throw new InvalidOperationException($"the {app} exited {exit}:\n{process.Stderr}\n{process.Stdout}");
        using var report = JsonDocument.Parse(lines[^1]);
        var done = report.RootElement.GetProperty("messages").GetInt64();
        return done == messages ? LongRunCheck.Read(app, report.RootElement)
            : throw new InvalidOperationException($"the {app} did {done} of {messages} messages:\n{process.Stderr}");
    }
}
