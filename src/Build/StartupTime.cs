namespace Prewire.Build;

/// <summary>
/// One timed start: wall-clock milliseconds from spawn to the ready line (or exit), and of those the
/// ones the process spent off the CPU (<see cref="ProcessCpu"/>; null where its CPU time cannot be read).
/// </summary>
/// <remarks>
/// Off the CPU is what instructions cannot see: a sleep, a wait on a socket or a disk, the run queue.
/// Its work, page faults included, is on the CPU and so left out, whatever the host's speed that day.
/// </remarks>
public readonly record struct StartupTime(double Ms, double? OffCpuMs)
{
    /// <summary>A start of <paramref name="ms"/> that used <paramref name="cpuMs"/> of CPU.</summary>
    public static StartupTime Of(double ms, double? cpuMs) => new(ms, ms - cpuMs);

    /// <summary>The least of each figure of two starts: load only ever adds to either.</summary>
    public static StartupTime Least(StartupTime a, StartupTime b) =>
        new(Math.Min(a.Ms, b.Ms), a.OffCpuMs is { } x && b.OffCpuMs is { } y ? Math.Min(x, y) : a.OffCpuMs ?? b.OffCpuMs);
}
