namespace Prewire.Testing;

/// <summary>What <see cref="StartupTrace"/> saw a run execute of the app's managed code.</summary>
/// <param name="Methods">The methods it ran, in the order it first entered each.</param>
/// <param name="CodeWindows">The 64 KiB windows of managed code it ran in (<see cref="StartupTrace.FaultAroundBytes"/>): about its code's file faults.</param>
/// <param name="CodeBytes">The size of those methods together: the fewest windows they could fill is this over 64 KiB.</param>
public sealed record StartupTraceResult(IReadOnlyList<string> Methods, int CodeWindows, long CodeBytes)
{
    /// <summary>The windows the methods would fill laid out one after another.</summary>
    public int LeastWindows => (int)((CodeBytes + (long)StartupTrace.FaultAroundBytes - 1) / (long)StartupTrace.FaultAroundBytes);
}
