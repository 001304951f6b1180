using System.Collections.ObjectModel;
using Prewire.Messaging;

namespace Prewire.Samples.Messaging;

public sealed class RecentMessageIdsTests
{
    [Fact]
    public void It_forgets_the_oldest_id_once_full_and_a_repeated_id_takes_no_second_place()
    {
        var recent = new RecentMessageIds(2);
        var (a, b, c) = (Message("a"), Message("b"), Message("c"));
        recent.Add(a);
        recent.Add(b);
        recent.Add(a);
        Assert.True(recent.Contains(a) && recent.Contains(b));

        recent.Add(c);
        Assert.Equal((false, true, true), (recent.Contains(a), recent.Contains(b), recent.Contains(c)));
    }

    [Fact]
    public void A_window_of_zero_remembers_nothing_and_a_message_without_an_id_is_never_in_one()
    {
        var recent = new RecentMessageIds(0);
        recent.Add(Message("a"));
        Assert.False(recent.Contains(Message("a")));

        recent = new RecentMessageIds(2);
        recent.Add(Message(""));
        Assert.False(recent.Contains(Message("")));
    }

    [Fact]
    public void A_hex_id_is_one_id_whether_its_text_was_made_or_not()
    {
        var recent = new RecentMessageIds(2);
        var id = Guid.NewGuid();
        recent.Add(Message(id.ToString("N")));
        Assert.True(recent.Contains(Message(id.ToString("N"))));
        // Its upper-case text is another id: only the lower-case one is read as a value.
        Assert.False(recent.Contains(Message(id.ToString("N").ToUpperInvariant())));
    }

    [Fact]
    public void Once_full_remembering_an_id_text_or_hex_allocates_nothing()
    {
        var recent = new RecentMessageIds(100);
        var messages = Enumerable.Range(0, 1_000).Select(i => Message(i % 2 == 0 ? $"id-{i}" : $"{i:x32}")).ToArray();
        for (var i = 0; i < 200; i++) recent.Add(messages[i]);

        var before = GC.GetAllocatedBytesForCurrentThread();
        for (var i = 200; i < messages.Length; i++)
        {
            if (!recent.Contains(messages[i])) recent.Add(messages[i]);
        }
        Assert.Equal(0, GC.GetAllocatedBytesForCurrentThread() - before);
        Assert.True(recent.Contains(messages[^1]) && !recent.Contains(messages[800]));
    }

    [Fact]
    public void A_window_is_sized_with_its_first_id_not_when_made_before_the_app_is_ready()
    {
        var message = Message("a");
        var before = GC.GetAllocatedBytesForCurrentThread();
        var recent = new RecentMessageIds(10_000);
        var made = GC.GetAllocatedBytesForCurrentThread();
        recent.Add(message);
        var sized = GC.GetAllocatedBytesForCurrentThread();

        // The object and its lock; then the set's and the queue's arrays, 24 B a key in each at least.
        Assert.True(made - before < 100, $"making the window allocated {made - before} B");
        Assert.True(sized - made > 10_000 * 48, $"its first id allocated {sized - made} B");
        Assert.True(recent.Contains(message));
    }

    private static TransportReceiveContext Message(string id) => new(id, ReadOnlyDictionary<string, string>.Empty, default);
}
