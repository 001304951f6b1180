using System.Globalization;

namespace Prewire.Testing;

/// <summary>
/// What a start costs the kernel, from GNU time (the child's <c>getrusage</c>): page faults and peak
/// resident memory from spawn to the ready line (and the exit right after it). Neither sees load: they
/// follow the binary's size and what the start touches (the Consumer's least of 8 runs here: 1,039
/// minor faults, the most 1,047).
/// </summary>
public static class ResourceUse
{
    /// <summary>GNU time's path (Debian's <c>time</c> package, installed by the bootstrap).</summary>
    public const string GnuTime = "/usr/bin/time";

    /// <summary>Whether runs of <paramref name="rid"/> are measured: natively (qemu's own memory would be counted), with GNU time installed.</summary>
    public static bool Measures(string rid) => !Qemu.Emulates(rid) && File.Exists(GnuTime);

    /// <summary>One run's faults and peak RSS.</summary>
    public static async Task<ResourceFigure> MeasureAsync(string executable, string rid, IReadOnlyList<string> args, bool stopAtReady)
    {
        var output = await WatchedRun.RunAsync(executable, rid, args, stopAtReady, Launcher, 1, launcherForks: true).ConfigureAwait(false);
        return Read(output);
    }

    /// <summary>GNU time as a launcher, writing a run's faults and peak RSS to <paramref name="outputFile"/> (<see cref="Read"/> reads them).</summary>
    public static IReadOnlyList<string> Launcher(string outputFile) => [GnuTime, "--format=%R %F %M", $"--output={outputFile}"];

    /// <summary>The figures <see cref="Launcher"/> wrote: its last line.</summary>
    public static ResourceFigure Read(string output)
    {
        var fields = output.Trim().Split('\n')[^1].Split(' ');
        return new ResourceFigure(Parse(fields[0]), Parse(fields[1]), Parse(fields[2]));

        static long Parse(string value) => long.Parse(value, CultureInfo.InvariantCulture);
    }
}
