namespace Prewire.Samples;

public sealed class LatencyHistogramTests
{
    [Fact]
    public void Percentiles_are_within_3_percent_of_the_recorded_latencies()
    {
        var histogram = new LatencyHistogram();
        // 1..1000 ms, one each: the median is 500 ms, the 99th percentile 990 ms.
        for (var ms = 1; ms <= 1_000; ms++) histogram.Record(TimeSpan.FromMilliseconds(ms));

        Assert.InRange(histogram.Percentile(0.50)!.Value.TotalMilliseconds, 500 * 0.97, 500 * 1.03);
        Assert.InRange(histogram.Percentile(0.99)!.Value.TotalMilliseconds, 990 * 0.97, 990 * 1.03);
        Assert.InRange(histogram.Percentile(1)!.Value.TotalMilliseconds, 1_000 * 0.97, 1_000 * 1.03);
    }

    [Fact]
    public void Below_64_microseconds_it_is_exact_and_a_negative_latency_counts_as_0()
    {
        var histogram = new LatencyHistogram();
        histogram.Record(TimeSpan.FromMicroseconds(-5));
        histogram.Record(TimeSpan.FromMicroseconds(17));

        Assert.Equal(TimeSpan.Zero, histogram.Percentile(0.5));
        Assert.Equal(TimeSpan.FromMicroseconds(17), histogram.Percentile(1));
    }

    [Fact]
    public void With_nothing_recorded_there_is_no_percentile_and_recording_allocates_nothing()
    {
        var histogram = new LatencyHistogram();
        Assert.Null(histogram.Percentile(0.99));

        var before = GC.GetAllocatedBytesForCurrentThread();
        for (var i = 0; i < 1_000; i++) histogram.Record(TimeSpan.FromMilliseconds(i));
        Assert.Equal(0, GC.GetAllocatedBytesForCurrentThread() - before);
    }
}
