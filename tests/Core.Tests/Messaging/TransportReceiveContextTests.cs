using System.Buffers;
using System.Text;

namespace Prewire.Messaging;

public sealed class TransportReceiveContextTests
{
    [Fact]
    public void A_returned_context_comes_back_for_the_next_delivery_with_its_children_set_to_it()
    {
        using var cancelled = new CancellationTokenSource();
        cancelled.Cancel();
        var first = TransportReceiveContext.Rent("m-1", new Dictionary<string, string> { ["a"] = "1" }, Body("one"), cancelled.Token);
        var physical = first.ToPhysical();
        var logical = physical.ToLogical("one as text");
        physical.Extensions.Set("bag entry");
        first.Return();

        // Nothing of the last delivery kept alive while the context waits in the pool.
        Assert.Equal(("", 0L), (physical.MessageId, physical.Body.Length));
        Assert.Null((object?)logical.Message);

        // Same thread, nothing rented in between: the pool's item for this thread is the one given back.
        var secondHeaders = new Dictionary<string, string> { ["b"] = "2" };
        var second = TransportReceiveContext.Rent("m-2", secondHeaders, Body("two"), TestContext.Current.CancellationToken);
        Assert.Same(first, second);
        var secondPhysical = second.ToPhysical();
        var secondLogical = secondPhysical.ToLogical("two as text");
        Assert.Same(physical, secondPhysical);
        Assert.Same(logical, secondLogical);
        Assert.Equal(("m-2", "two"), (secondPhysical.MessageId, Encoding.ASCII.GetString(secondPhysical.Body.ToArray())));
        Assert.Same(secondHeaders, secondPhysical.Headers);
        Assert.Equal(("m-2", "two as text"), (secondLogical.MessageId, secondLogical.Message));
        Assert.Same(secondHeaders, secondLogical.Headers);
        Assert.False(secondPhysical.Extensions.TryGet<string>(out _));
        // The children share the delivery's token, not the last one's.
        Assert.False(secondLogical.CancellationToken.IsCancellationRequested);
        second.Return();
    }

    [Fact]
    public void A_replayed_step_gets_the_same_children_set_again()
    {
        var context = new TransportReceiveContext("m-1", new Dictionary<string, string>(), Body("one"));
        var physical = context.ToPhysical();
        physical.Extensions.Set(1);
        var logical = physical.ToLogical("first try");

        Assert.Same(physical, context.ToPhysical());
        Assert.False(physical.Extensions.TryGet<int>(out _));
        Assert.Same(logical, physical.ToLogical("second try"));
        Assert.Equal("second try", logical.Message);
    }

    [Fact]
    public void An_id_read_as_a_value_is_one_string_when_asked_and_the_same_key_as_its_text_from_another_client()
    {
        var id = Guid.NewGuid();
        var context = TransportReceiveContext.Rent(id, new Dictionary<string, string>(), Body("one"), TestContext.Current.CancellationToken);
        var logical = context.ToPhysical().ToLogical("one as text");

        var before = GC.GetAllocatedBytesForCurrentThread();
        Assert.True(context.TryGetMessageId(out var value));
        Assert.Equal(0, GC.GetAllocatedBytesForCurrentThread() - before);
        Assert.Equal(id, value);
        // Made once, from the child as from the delivery, and still a value afterwards.
        Assert.Equal(id.ToString("N"), logical.MessageId);
        Assert.Same(logical.MessageId, context.MessageId);
        Assert.True(context.TryGetMessageId(out value));
        context.Return();

        // The same id as RabbitMQ.Client's text: the same value. Any other text: none, and nothing of the last id left.
        var fromText = TransportReceiveContext.Rent(id.ToString("N"), new Dictionary<string, string>(), Body("two"), TestContext.Current.CancellationToken);
        Assert.Equal((true, id), (fromText.TryGetMessageId(out value), value));
        fromText.Return();
        var other = TransportReceiveContext.Rent(id.ToString("D"), new Dictionary<string, string>(), Body("three"), TestContext.Current.CancellationToken);
        Assert.Equal((false, id.ToString("D")), (other.TryGetMessageId(out _), other.ToPhysical().MessageId));
        other.Return();
        Assert.Equal(("", false), (other.MessageId, other.TryGetMessageId(out _)));
    }

    private static ReadOnlySequence<byte> Body(string text) => new(Encoding.ASCII.GetBytes(text));
}
