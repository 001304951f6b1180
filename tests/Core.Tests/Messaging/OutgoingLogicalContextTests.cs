namespace Prewire.Messaging;

public sealed class OutgoingLogicalContextTests
{
    [Fact]
    public void Disposing_clears_the_headers_for_the_next_message_and_they_are_gone_from_this_one()
    {
        var first = new OutgoingLogicalContext("m-1", "one");
        first.Headers["a"] = "1";
        var headers = first.Headers;
        first.Dispose();

        Assert.Throws<ObjectDisposedException>(() => first.Headers);
        // Same thread, nothing rented in between: the next message gets the same dictionary, empty.
        using var second = new OutgoingLogicalContext("m-2", "two");
        Assert.Same(headers, second.Headers);
        Assert.Empty(second.Headers);
    }

    [Fact]
    public void Renting_a_body_buffer_again_keeps_the_headers()
    {
        using var message = new OutgoingLogicalContext("m-1", "one");
        message.Headers["a"] = "1";
        message.RentBodyBuffer(16);
        message.RentBodyBuffer(32);
        Assert.Equal("1", message.Headers["a"]);
    }

    [Fact]
    public void A_rented_context_comes_back_for_the_next_message_with_its_children_and_nothing_of_the_last_message()
    {
        using var cancelled = new CancellationTokenSource();
        cancelled.Cancel();
        var first = OutgoingLogicalContext.Rent("m-1", "one", cancelled.Token);
        first.Headers["a"] = "1";
        first.SentAt = DateTimeOffset.UnixEpoch;
        first.Extensions.Set("bag entry");
        var physical = first.ToPhysical(new System.Buffers.ReadOnlySequence<byte>("body"u8.ToArray()));
        var dispatch = physical.ToDispatch("ex", "key");
        physical.Extensions.Set(42);
        first.Dispose();

        // Same thread, nothing rented in between: the pool's item for this thread is the one given back.
        using var second = OutgoingLogicalContext.Rent("m-2", "two", TestContext.Current.CancellationToken);
        Assert.Same(first, second);
        Assert.Equal(("m-2", "two"), (second.MessageId, second.Message));
        Assert.Empty(second.Headers);
        Assert.Null(second.SentAt);
        Assert.False(second.CancellationToken.IsCancellationRequested);
        Assert.False(second.Extensions.TryGet<string>(out _));

        second.SentAt = DateTimeOffset.UnixEpoch.AddDays(1);
        var body = new System.Buffers.ReadOnlySequence<byte>("next"u8.ToArray());
        var secondPhysical = second.ToPhysical(body);
        var secondDispatch = secondPhysical.ToDispatch("", "queue");
        Assert.Same(physical, secondPhysical);
        Assert.Same(dispatch, secondDispatch);
        Assert.Equal(("m-2", "next"), (secondPhysical.MessageId, System.Text.Encoding.ASCII.GetString(System.Buffers.BuffersExtensions.ToArray(secondPhysical.Body))));
        Assert.Equal(("", "queue", "m-2"), (secondDispatch.Exchange, secondDispatch.RoutingKey, secondDispatch.MessageId));
        Assert.Same(second.Headers, secondDispatch.Headers);
        Assert.Equal(second.SentAt, secondDispatch.SentAt);
        Assert.False(secondPhysical.Extensions.TryGet<int>(out _));
        Assert.False(secondDispatch.CancellationToken.IsCancellationRequested);
    }

    [Fact]
    public void A_constructed_context_is_not_reused_after_dispose()
    {
        var made = new OutgoingLogicalContext("m-1", "one");
        made.Dispose();

        using var rented = OutgoingLogicalContext.Rent("m-2", "two", TestContext.Current.CancellationToken);
        Assert.NotSame(made, rented);
        Assert.Throws<ObjectDisposedException>(() => made.Headers);
    }
}
