using System.Diagnostics;
using System.Globalization;
using Prewire.Amqp;
using Prewire.Testing;

namespace Prewire.Messaging;

/// <summary>A node whose port never answers the connect (a dropped SYN: a firewall, a lost route), on Prewire's client.</summary>
public sealed class AmqpSessionConnectTests
{
    // The session's limit covers the TCP connect too, below the transport's own 10 s and above it.
    [Theory]
    [InlineData(1.0)]
    [InlineData(11.0)]
    public async Task A_node_that_never_answers_the_connect_is_given_up_at_the_connect_timeout_in_one_line(double seconds)
    {
        using var unanswered = new UnansweredPort();
        var uri = AmqpUri.Parse($"amqp://guest:secret@127.0.0.1:{unanswered.Port}/");
        var options = new BrokerSessionOptions { Endpoints = [uri], Queue = "q", ClientName = "test", ConnectTimeout = TimeSpan.FromSeconds(seconds) };
        var started = Stopwatch.GetTimestamp();

        var e = await Assert.ThrowsAsync<AmqpException>(() => AmqpSession.OpenAsync(options, uri, TestContext.Current.CancellationToken));

        Assert.Equal(string.Create(CultureInfo.InvariantCulture, $"cannot reach RabbitMQ at {uri}: cannot connect to 127.0.0.1:{unanswered.Port}: no answer within {seconds:0.#} s"), e.Message);
        Assert.InRange(Stopwatch.GetElapsedTime(started).TotalSeconds, seconds - 0.1, seconds + 4);
    }

    // Straight on the connection: a handshake limit shorter than the transport's connect timeout ends the connect in the same
    // words. Over amqps the connect is never made, so no TLS handshake began: not said to have gone unfinished.
    // The transport's infinite timeout (-1 ms) is the longer of the two, not the shorter.
    [Theory]
    [InlineData("amqp", 10_000)]
    [InlineData("amqps", 10_000)]
    [InlineData("amqp", -1)]
    [InlineData("amqps", -1)]
    public async Task A_handshake_timeout_below_the_transports_connect_timeout_ends_the_connect_in_one_line(string scheme, int transportTimeoutMilliseconds)
    {
        using var unanswered = new UnansweredPort();
        var options = new AmqpConnectionOptions
        {
            Uri = AmqpUri.Parse($"{scheme}://127.0.0.1:{unanswered.Port}/"),
            HandshakeTimeout = TimeSpan.FromSeconds(1),
            Transport = new() { ConnectTimeout = TimeSpan.FromMilliseconds(transportTimeoutMilliseconds) },
        };

        var e = await Assert.ThrowsAsync<IOException>(() => AmqpConnection.ConnectAsync(options, TestContext.Current.CancellationToken));

        Assert.Equal($"cannot connect to 127.0.0.1:{unanswered.Port}: no answer within 1 s", e.Message);
    }
}
