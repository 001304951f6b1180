using System.Globalization;
using System.Text.Json;

namespace Prewire.Testing;

/// <summary>
/// What a long run of a published app (<c>--count N --json --heap-check</c>) says about leaks, read from
/// its report's readings once warm (from a tenth of the run on): the managed heap after a full collection
/// and the bytes allocated so far, at each 25th and at the last message.
/// <list type="bullet">
/// <item>The heap: a leak keeps a little in every interval, while pools reaching a new high-water mark or
/// a one-off grow it in a few steps, by more than a leak does (1 KB). So the check counts the intervals in
/// which it grew, not by how much (a sign test): growing in more than half of them fails.</item>
/// <item>Allocations: the whole run may allocate at most <see cref="MostExtraBytes"/> more than its
/// cheapest interval's cost per message foretold: a cost some intervals do not pay adds up beyond the
/// one-offs a run has.</item>
/// </list>
/// docs/smoke-tests.md has the figures both were chosen from.
/// </summary>
public sealed record LongRunCheck(string App, int Intervals, int Grew, long HeapWarm, long HeapEnd, long Messages, double BytesPerMessage, double LeastBytesPerMessage)
{
    /// <summary>The run's length: an interval is then 8,000 messages, so a leak once every 5,000 is in each.</summary>
    public const int RunMessages = 200_000;

    /// <summary>
    /// Measured: up to 74 KB in the Consumer (a 64 KiB buffer taken once after the warm reading, which
    /// the heap kept too), 11 KB in the Publisher; so a one-off of that kind, with room, and no more.
    /// </summary>
    public const long MostExtraBytes = 256 * 1024;

    public bool HeapGrows => Grew * 2 > Intervals;

    /// <summary>What the run allocated beyond its messages times its cheapest interval's bytes per message.</summary>
    public long ExtraBytes => (long)Math.Round((BytesPerMessage - LeastBytesPerMessage) * Messages);

    public bool AllocatesMore => ExtraBytes > MostExtraBytes;

    public bool Passed => !HeapGrows && !AllocatesMore;

    public static LongRunCheck Read(string app, JsonElement report)
    {
        var at = Numbers(report, "readingsAt");
        var (heap, allocated) = (Numbers(report, "heapBytes"), Numbers(report, "allocatedBytes"));
        var warm = Array.FindIndex(at, a => a >= at[^1] / 10);
        var steady = Enumerable.Range(warm, at.Length - 1 - warm).ToArray();
        if (steady.Length < 2) throw new InvalidOperationException($"{app}: {at.Length} readings in the report, too few for a long run");
        var grew = steady.Count(i => heap[i + 1] > heap[i]);
        var least = steady.Min(i => (double)(allocated[i + 1] - allocated[i]) / (at[i + 1] - at[i]));
        var whole = (double)(allocated[^1] - allocated[warm]) / (at[^1] - at[warm]);
        return new LongRunCheck(app, steady.Length, grew, heap[warm], heap[^1], at[^1] - at[warm], whole, least);
    }

    public override string ToString() => string.Create(CultureInfo.InvariantCulture,
        $"{App}: the heap grew in {Grew} of {Intervals} intervals ({HeapWarm:N0} B once warm, {HeapEnd:N0} B at the end; more than half fails), {BytesPerMessage:0.000} B per message against its cheapest interval's {LeastBytesPerMessage:0.000}, {ExtraBytes:N0} B more over {Messages:N0} messages (at most {MostExtraBytes:N0})");

    private static long[] Numbers(JsonElement report, string name) =>
        ReportJson.Numbers(report, name) ?? throw new InvalidOperationException($"no {name} in the report: was it run with --heap-check?");
}
