using System.Diagnostics;

namespace Prewire.Samples;

/// <summary>A process-wide stopwatch started the first time an app touches it, at the top of <c>Main</c>.</summary>
public static class StartupClock
{
    private static readonly long _started = Stopwatch.GetTimestamp();

    /// <summary>Starts the clock if it has not started yet; call first thing in <c>Main</c>.</summary>
    public static void Start() => _ = _started;

    /// <summary>Time since the clock started.</summary>
    public static TimeSpan Elapsed => Stopwatch.GetElapsedTime(_started);
}
