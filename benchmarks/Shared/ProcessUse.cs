using System.Globalization;
using System.Runtime.InteropServices;

namespace Prewire.Benchmarks.Shared;

/// <summary>
/// What the whole process has used so far, every thread and those that have ended: CPU time (user and
/// system apart), context switches and peak resident memory, from one <c>getrusage(RUSAGE_SELF)</c>.
/// </summary>
internal readonly partial record struct ProcessUse(TimeSpan UserTime, TimeSpan SystemTime, long ContextSwitches, double PeakRssMb)
{
    public static ProcessUse Now()
    {
        if (GetRUsage(0, out var usage) != 0) throw new InvalidOperationException($"getrusage failed: errno {Marshal.GetLastPInvokeError()}");
        return new(
            TimeSpan.FromMicroseconds(usage.UserSeconds * 1_000_000.0 + usage.UserMicroseconds),
            TimeSpan.FromMicroseconds(usage.SystemSeconds * 1_000_000.0 + usage.SystemMicroseconds),
            usage.VoluntarySwitches + usage.InvoluntarySwitches,
            usage.MaxRssKb / 1024.0);
    }

    /// <summary>What was used between <paramref name="before"/> and this reading (peak RSS: this reading's).</summary>
    public ProcessUse Since(ProcessUse before) =>
        new(UserTime - before.UserTime, SystemTime - before.SystemTime, ContextSwitches - before.ContextSwitches, PeakRssMb);

    /// <summary>The key=value fields the benchmark lines share, per message.</summary>
    public string PerMessage(long messages) => string.Create(CultureInfo.InvariantCulture,
        $"cpuUsPerMessage={(UserTime + SystemTime).TotalMicroseconds / messages:0.00} userUsPerMessage={UserTime.TotalMicroseconds / messages:0.00} systemUsPerMessage={SystemTime.TotalMicroseconds / messages:0.00} switchesPerMessage={(double)ContextSwitches / messages:0.000}");

    [LibraryImport("libc", EntryPoint = "getrusage", SetLastError = true)]
    private static partial int GetRUsage(int who, out RUsage usage);

    // struct rusage on 64-bit Linux: two timevals, then fourteen longs.
    [StructLayout(LayoutKind.Sequential)]
    private struct RUsage
    {
        public long UserSeconds, UserMicroseconds, SystemSeconds, SystemMicroseconds;
        public long MaxRssKb, SharedKb, DataKb, StackKb, MinorFaults, MajorFaults, Swaps, BlocksIn, BlocksOut;
        public long MessagesSent, MessagesReceived, Signals, VoluntarySwitches, InvoluntarySwitches;
    }
}
