using System.Text.Json;

namespace Prewire.Testing;

/// <summary>
/// One run of an app's hidden <c>--warmup-report</c> mode (samples/Shared/WarmupReport.cs): its JSON
/// line, and the time from spawn to that line, measured here, outside the process. With a count, what
/// each window allocated (the least is <c>AllocatedBytes</c>) and the pool's threads before the first and after each.
/// </summary>
public sealed record WarmupRun(string Builder, double BuildAndFirstInvokeMs, double SpawnToHandledMs, int Messages, long AllocatedBytes, IReadOnlyList<long>? WindowBytes = null, IReadOnlyList<long>? PoolThreads = null)
{
    /// <summary>Each window's bytes and the pool's threads, for a failure's message; empty without a count.</summary>
    public string Windows => WindowBytes is null ? "" : $"windows {string.Join(", ", WindowBytes)} B; the pool's threads {string.Join(" → ", PoolThreads ?? [])}";

    /// <summary>Steady-state bytes per message, when the run had a count.</summary>
    public double? BytesPerMessage => Messages > 0 ? (double)AllocatedBytes / Messages : null;

    // Server GC's start, as qemu emulates it: 6.5 s of the HttpEndpoint's 8.4 s to its first message
    // (AOT, linux-arm64; 1.9 s with workstation GC, 2026-12-04). The Web SDK makes it the HttpEndpoint's
    // default, every build of it pays it, and beside other work it swings by more than the builds differ.
    private static readonly Dictionary<string, string> _workstationGc = new() { ["DOTNET_gcServer"] = "0" };

    /// <summary>Runs <paramref name="executable"/> with <c>--warmup-report</c> and <paramref name="args"/>; throws with its output unless it exits 0 with one JSON line.</summary>
    public static Task<WarmupRun> RunAsync(string executable, string rid, params string[] args) => RunAsync(executable, rid, null, args);

    /// <summary>
    /// A run whose timings are compared with another build's: as <see cref="RunAsync(string, string, string[])"/>,
    /// but under qemu with workstation GC, so that what is compared is the runtime's and the pipeline's
    /// start rather than qemu emulating server GC's.
    /// </summary>
    public static Task<WarmupRun> TimedAsync(string executable, string rid) =>
        RunAsync(executable, rid, Qemu.Emulates(rid) ? _workstationGc : null, []);

    private static async Task<WarmupRun> RunAsync(string executable, string rid, IReadOnlyDictionary<string, string>? environment, string[] args)
    {
        await using var process = AppProcess.Start(executable, ["--warmup-report", .. args], environment, rid: rid);
        var exitCode = await process.WaitForExitAsync(AppRuns.ReadyTimeout(rid) * 2).ConfigureAwait(false);
        var lines = process.Stdout.Split('\n', StringSplitOptions.RemoveEmptyEntries);
        if (exitCode != 0 || lines.Length != 1)
            throw new InvalidOperationException($"--warmup-report exited {exitCode} with {lines.Length} lines (expected one JSON line).\nstdout:\n{process.Stdout}\nstderr:\n{process.Stderr}");
        using var json = JsonDocument.Parse(lines[0]);
        var root = json.RootElement;
        return new WarmupRun(
            root.GetProperty("builder").GetString()!,
            root.GetProperty("buildMs").GetDouble() + root.GetProperty("firstInvokeMs").GetDouble(),
            process.FirstLineMs!.Value,
            root.TryGetProperty("messages", out var messages) ? messages.GetInt32() : 0,
            root.TryGetProperty("allocatedBytes", out var allocated) ? allocated.GetInt64() : 0,
            ReportJson.Numbers(root, "windowBytes"),
            ReportJson.Numbers(root, "poolThreads"));
    }

    /// <summary>The median of each timing on its own.</summary>
    public static WarmupRun Median(IReadOnlyList<WarmupRun> runs)
    {
        ArgumentNullException.ThrowIfNull(runs);
        return runs[0] with
        {
            BuildAndFirstInvokeMs = StartupRuns.Median(runs.Select(r => r.BuildAndFirstInvokeMs)),
            SpawnToHandledMs = StartupRuns.Median(runs.Select(r => r.SpawnToHandledMs)),
        };
    }
}
