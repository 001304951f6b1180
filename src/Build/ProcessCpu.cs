using System.Runtime.InteropServices;

namespace Prewire.Build;

/// <summary>
/// The CPU time of a child process, every thread: what a start spent on the CPU, so that the rest of
/// its wall-clock time (a sleep, a wait on a socket, the run queue) shows apart from its work.
/// </summary>
/// <remarks>
/// Both readings are the kernel's scheduler time, to the microsecond or better; /proc/&lt;pid&gt;/stat
/// rounds to 10 ms ticks. Linux only; elsewhere they are null.
/// </remarks>
public static partial class ProcessCpu
{
    /// <summary>Milliseconds of CPU the running process <paramref name="pid"/> has used so far, every thread, ended ones too.</summary>
    public static double? RunningMs(int pid)
    {
        if (!OperatingSystem.IsLinux() || ClockGetCpuClockId(pid, out var clock) != 0) return null;
        return ClockGetTime(clock, out var time) == 0 ? (time.Seconds * 1e3) + (time.Nanoseconds / 1e6) : null;
    }

    /// <summary>
    /// Milliseconds of CPU used by every child this process has waited for, all together
    /// (<c>getrusage(RUSAGE_CHILDREN)</c>): across one child's run, the difference is that child's, as
    /// long as no other child ended meanwhile.
    /// </summary>
    public static double? EndedChildrenMs()
    {
        if (!OperatingSystem.IsLinux() || GetRUsage(-1, out var usage) != 0) return null;
        return (usage.UserSeconds * 1e3) + (usage.UserMicroseconds / 1e3) + (usage.SystemSeconds * 1e3) + (usage.SystemMicroseconds / 1e3);
    }

    [LibraryImport("libc", EntryPoint = "clock_getcpuclockid")]
    private static partial int ClockGetCpuClockId(int pid, out int clock);

    [LibraryImport("libc", EntryPoint = "clock_gettime")]
    private static partial int ClockGetTime(int clock, out TimeSpec time);

    [LibraryImport("libc", EntryPoint = "getrusage")]
    private static partial int GetRUsage(int who, out RUsage usage);

    [StructLayout(LayoutKind.Sequential)]
    private struct TimeSpec
    {
        public long Seconds, Nanoseconds;
    }

    // struct rusage on 64-bit Linux: two timevals, then fourteen longs.
    [StructLayout(LayoutKind.Sequential)]
    private struct RUsage
    {
        public long UserSeconds, UserMicroseconds, SystemSeconds, SystemMicroseconds;
        public long MaxRssKb, SharedKb, DataKb, StackKb, MinorFaults, MajorFaults, Swaps, BlocksIn, BlocksOut;
        public long MessagesSent, MessagesReceived, Signals, VoluntarySwitches, InvoluntarySwitches;
    }
}
