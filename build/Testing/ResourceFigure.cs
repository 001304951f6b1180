namespace Prewire.Testing;

/// <summary>
/// An app's start as the kernel saw it, to its ready line without a broker (<see cref="ResourceUse"/>):
/// minor and major page faults and the peak resident set, the least of each over the runs.
/// </summary>
public sealed record ResourceFigure(long MinorFaults, long MajorFaults, long PeakRssKb)
{
    /// <summary>Every fault, minor or major: a page the start touched.</summary>
    public long Faults => MinorFaults + MajorFaults;

    /// <summary>The least of each field over <paramref name="runs"/>.</summary>
    public static ResourceFigure Least(IReadOnlyCollection<ResourceFigure> runs) =>
        new(runs.Min(r => r.MinorFaults), runs.Min(r => r.MajorFaults), runs.Min(r => r.PeakRssKb));
}
