using System.Diagnostics;

namespace Prewire.Testing;

/// <summary>
/// Processes that keep every core busy (a shell loop each, at the default priority) for as long as
/// this lives: the saturated host a gate must not fail an unchanged app on, nor let a regression through.
/// </summary>
public sealed class BusyLoops : IDisposable
{
    private readonly List<Process> _loops;

    private BusyLoops(List<Process> loops) => _loops = loops;

    /// <summary>Starts <paramref name="count"/> loops (default: one per core).</summary>
    public static BusyLoops Start(int? count = null) =>
        new([.. Enumerable.Range(0, count ?? Environment.ProcessorCount).Select(_ =>
            Process.Start(new ProcessStartInfo("/bin/sh", ["-c", "while :; do :; done"]) { UseShellExecute = false })!)]);

    public void Dispose()
    {
        foreach (var loop in _loops)
        {
            loop.Kill();
            loop.WaitForExit();
            loop.Dispose();
        }
    }
}
