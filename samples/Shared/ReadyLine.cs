using System.Globalization;

namespace Prewire.Samples;

/// <summary>
/// The one machine-readable line every app prints when it is ready: <c>ready in 3.1 ms</c>.
/// </summary>
/// <remarks>
/// The figure is the time since <see cref="StartupClock"/> started, i.e. since the app's code began
/// to run; runtime start-up before <c>Main</c> is not in it. Whole-process start-up is measured from
/// outside (the demo and the AotSmoke tests time spawn to this line).
/// </remarks>
public static class ReadyLine
{
    private const string Prefix = "ready in ";
    private const string Suffix = " ms";

    /// <summary>Formats the ready line for an elapsed time.</summary>
    public static string Format(TimeSpan elapsed) =>
        string.Create(CultureInfo.InvariantCulture, $"{Prefix}{elapsed.TotalMilliseconds:0.0}{Suffix}");

    /// <summary>Writes the ready line for the time elapsed on <see cref="StartupClock"/> and flushes.</summary>
    public static void Write(TextWriter writer)
    {
        ArgumentNullException.ThrowIfNull(writer);
        writer.WriteLine(Format(StartupClock.Elapsed));
        writer.Flush();
    }

    /// <summary>Reads a ready line back; <see langword="false"/> for any other line.</summary>
    public static bool TryParse(ReadOnlySpan<char> line, out double milliseconds)
    {
        milliseconds = 0;
        line = line.Trim();
        return line.Length > Prefix.Length + Suffix.Length
            && line.StartsWith(Prefix, StringComparison.Ordinal)
            && line.EndsWith(Suffix, StringComparison.Ordinal)
            && double.TryParse(line[Prefix.Length..^Suffix.Length], NumberStyles.Float, CultureInfo.InvariantCulture, out milliseconds);
    }
}
