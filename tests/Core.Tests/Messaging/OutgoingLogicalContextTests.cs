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
}
