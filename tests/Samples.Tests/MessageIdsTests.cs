namespace Prewire.Samples;

public sealed class MessageIdsTests
{
    [Fact]
    public async Task Ids_from_four_threads_over_three_blocks_each_are_all_different_version_4_GUIDs()
    {
        // 3 blocks of 4,096 a thread, so ids from one block, from the next and from other threads meet.
        const int perThread = 3 * 4_096;
        var made = await Task.WhenAll(Enumerable.Range(0, 4).Select(_ => Task.Factory.StartNew(
            () => Enumerable.Range(0, perThread).Select(_ => MessageIds.Next()).ToArray(),
            TestContext.Current.CancellationToken, TaskCreationOptions.LongRunning, TaskScheduler.Default)));
        var ids = made.SelectMany(block => block).ToList();

        Assert.Equal(ids.Count, ids.Distinct().Count());
        Assert.All(ids, id => Assert.Equal(4, id.Version));
        // RFC 9562's variant: the top two bits of the 9th byte are 10.
        Assert.All(ids, id => Assert.Equal(0b1000, id.Variant & 0b1100));
    }

    [Fact]
    public void Making_an_id_allocates_nothing()
    {
        MessageIds.Next();
        var before = GC.GetAllocatedBytesForCurrentThread();
        for (var i = 0; i < 10_000; i++) MessageIds.Next();
        Assert.Equal(0, GC.GetAllocatedBytesForCurrentThread() - before);
    }
}
