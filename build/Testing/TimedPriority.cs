namespace Prewire.Testing;

/// <summary>
/// The priority the start-up gate's timed runs (the app and the floor alike) are spawned at:
/// niceness -20 through <c>nice</c>, where this user may raise it (root, CAP_SYS_NICE).
/// </summary>
/// <remarks>
/// Why: with every core busy (two busy loops on this 2-core machine), a 3.7 ms start outlasts the
/// scheduler's slice, so none of 60 runs went unpreempted while the floor's 1.7 ms ones did, and
/// the gate failed unchanged apps (5 of 9 checks; at -20, 0 of 30). At -20 a run weighs ~87 times a
/// nice-0 task, so other processes stop adding to it; the app's own work, sleeps and waits still do.
/// Where the priority cannot be raised the runs start as before.
/// </remarks>
public static class TimedPriority
{
    /// <summary>The niceness of the timed runs.</summary>
    public const int Niceness = -20;

    /// <summary>Whether runs here can start at <see cref="Niceness"/> (probed once: <c>nice</c> reports what it got).</summary>
    public static bool Available { get; } = Probe();

    /// <summary>The command line that starts <paramref name="fileName"/> with <paramref name="args"/> at the raised priority.</summary>
    public static (string FileName, IReadOnlyList<string> Args) Wrap(string fileName, IEnumerable<string> args) =>
        ("nice", ["-n", Niceness.ToString(System.Globalization.CultureInfo.InvariantCulture), fileName, .. args]);

    private static bool Probe()
    {
        try
        {
            var (fileName, args) = Wrap("nice", []);
            var (exitCode, output) = Tool.RunAsync(fileName, args, Path.GetTempPath()).GetAwaiter().GetResult();
            return exitCode == 0 && output.Trim() == Niceness.ToString(System.Globalization.CultureInfo.InvariantCulture);
        }
        catch (System.ComponentModel.Win32Exception)
        {
            return false;
        }
    }
}
