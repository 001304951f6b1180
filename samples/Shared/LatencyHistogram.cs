using System.Numerics;

namespace Prewire.Samples;

/// <summary>
/// Latencies in microseconds, counted in buckets about 3 % wide (32 per power of two, exact below
/// 64 µs), so recording is one interlocked increment and allocates nothing, from any thread.
/// </summary>
public sealed class LatencyHistogram
{
    private const int Exact = 64;
    private const int SubBuckets = 32;
    private readonly long[] _counts = new long[Exact + (40 * SubBuckets)];

    /// <summary>Records one latency (negative ones, from clocks apart, as 0).</summary>
    public void Record(TimeSpan latency)
    {
        var micros = Math.Max(0, latency.Ticks / TimeSpan.TicksPerMicrosecond);
        Interlocked.Increment(ref _counts[IndexOf(micros)]);
    }

    /// <summary>The latency at or under which <paramref name="quantile"/> of those recorded are, or null when none were.</summary>
    public TimeSpan? Percentile(double quantile)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(quantile);
        ArgumentOutOfRangeException.ThrowIfGreaterThan(quantile, 1);
        long total = 0;
        foreach (var count in _counts) total += Volatile.Read(in count);
        if (total == 0) return null;
        var target = Math.Max(1, (long)Math.Ceiling(quantile * total));
        long seen = 0;
        for (var i = 0; i < _counts.Length; i++)
        {
            seen += Volatile.Read(ref _counts[i]);
            if (seen >= target) return TimeSpan.FromTicks(ValueOf(i) * TimeSpan.TicksPerMicrosecond);
        }
        return TimeSpan.FromTicks(ValueOf(_counts.Length - 1) * TimeSpan.TicksPerMicrosecond);
    }

    private int IndexOf(long micros)
    {
        if (micros < Exact) return (int)micros;
        var shift = 63 - BitOperations.LeadingZeroCount((ulong)micros) - 5;
        var index = Exact + ((shift - 1) * SubBuckets) + (int)(micros >> shift) - SubBuckets;
        return Math.Min(index, _counts.Length - 1);
    }

    // A bucket's middle.
    private static long ValueOf(int index)
    {
        if (index < Exact) return index;
        var shift = ((index - Exact) / SubBuckets) + 1;
        var sub = ((index - Exact) % SubBuckets) + SubBuckets;
        return ((long)sub << shift) + (1L << (shift - 1));
    }
}
