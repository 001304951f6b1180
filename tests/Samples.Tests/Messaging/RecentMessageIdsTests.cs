namespace Prewire.Samples.Messaging;

public sealed class RecentMessageIdsTests
{
    [Fact]
    public void It_forgets_the_oldest_id_once_full_and_a_repeated_id_takes_no_second_place()
    {
        var recent = new RecentMessageIds(2);
        recent.Add("a");
        recent.Add("b");
        recent.Add("a");
        Assert.True(recent.Contains("a") && recent.Contains("b"));

        recent.Add("c");
        Assert.Equal((false, true, true), (recent.Contains("a"), recent.Contains("b"), recent.Contains("c")));
    }

    [Fact]
    public void A_window_of_zero_remembers_nothing()
    {
        var recent = new RecentMessageIds(0);
        recent.Add("a");
        Assert.False(recent.Contains("a"));
    }

    [Fact]
    public void Once_full_remembering_an_id_allocates_nothing()
    {
        var recent = new RecentMessageIds(100);
        var ids = Enumerable.Range(0, 1_000).Select(i => $"id-{i}").ToArray();
        for (var i = 0; i < 200; i++) recent.Add(ids[i]);

        var before = GC.GetAllocatedBytesForCurrentThread();
        for (var i = 200; i < ids.Length; i++) recent.Add(ids[i]);
        Assert.Equal(0, GC.GetAllocatedBytesForCurrentThread() - before);
    }
}
