namespace Prewire.Samples;

public sealed class SteadyWindowsTests
{
    [Fact]
    public void A_window_in_which_the_pool_added_a_thread_is_left_out_and_another_is_measured()
    {
        // The Publisher's report beside a publish loop: 2,880 B of a new pool thread in the first window.
        var windows = new SteadyWindows(3);
        windows.Add(3_008, 4);
        windows.Add(128, 4);
        windows.Add(128, 4);
        Assert.False(windows.Enough);

        windows.Add(128, 4);

        Assert.True(windows.Enough);
        Assert.Equal(128, windows.Least);
        Assert.Equal([3, 4, 4, 4, 4], windows.PoolThreads);
    }

    [Fact]
    public void A_cost_per_message_stays_when_the_pool_moved_in_every_window()
    {
        // 64 B a message over windows of 100, and the pool's count moving every time (up, then down
        // as an idle thread retires), a new thread's 2,880 B in all but one: ten windows, and the least of
        // them all still holds the cost.
        var windows = new SteadyWindows(3);
        for (var i = 0; !windows.Enough; i++) windows.Add(6_400 + (i == 4 ? 0 : 2_880), 3 + ((i + 1) % 2));

        Assert.Equal(SteadyWindows.Most, windows.Bytes.Count);
        Assert.Equal(6_400, windows.Least);
    }

    [Fact]
    public void A_cost_per_message_is_in_the_least_of_three_still_windows()
    {
        var windows = new SteadyWindows(4);
        windows.Add(6_528, 4);
        windows.Add(6_400, 4);
        windows.Add(6_464, 4);

        Assert.True(windows.Enough);
        Assert.Equal(6_400, windows.Least);
    }
}
