namespace Prewire.Samples;

public sealed class ReadyLineTests
{
    [Theory]
    [InlineData(3.14, "ready in 3.1 ms")]
    [InlineData(0, "ready in 0.0 ms")]
    [InlineData(1234.56, "ready in 1234.6 ms")]
    public void Format_prints_milliseconds_with_one_decimal_in_invariant_culture(double ms, string expected)
    {
        Assert.Equal(expected, ReadyLine.Format(TimeSpan.FromMilliseconds(ms)));
    }

    [Fact]
    public void TryParse_reads_back_what_Format_writes()
    {
        Assert.True(ReadyLine.TryParse(ReadyLine.Format(TimeSpan.FromMilliseconds(42.25)), out var ms));
        Assert.Equal(42.3, ms, precision: 1);
    }

    [Theory]
    [InlineData("[07:25:23.365 INF] ready in 3.1 ms")]
    [InlineData("ready in ms")]
    [InlineData("ready in 3,1 ms")]
    [InlineData("ready in 3.1 s")]
    [InlineData("")]
    public void TryParse_rejects_other_lines(string line)
    {
        Assert.False(ReadyLine.TryParse(line, out _));
    }

    [Fact]
    public void Write_prints_the_startup_clock_and_flushes()
    {
        StartupClock.Start();
        using var writer = new StringWriter();
        ReadyLine.Write(writer);
        Assert.True(ReadyLine.TryParse(writer.ToString(), out var ms));
        // The line rounds to 0.1 ms, so it may read up to 0.05 ms past the clock read after it.
        Assert.InRange(ms, 0, StartupClock.Elapsed.TotalMilliseconds + 0.05);
    }
}
