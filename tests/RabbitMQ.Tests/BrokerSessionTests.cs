using Prewire.Amqp;
using Prewire.Messaging;
using Prewire.Testing;
using BasicProperties = RabbitMQ.Client.BasicProperties;

namespace Prewire.RabbitMQ;

/// <summary>A session's publishes end when the session does, whatever became of their confirms.</summary>
public sealed class BrokerSessionTests
{
    [Fact]
    public async Task A_publish_awaiting_its_confirm_fails_as_a_lost_connection_when_the_session_is_disposed_under_it()
    {
        var ct = TestContext.Current.CancellationToken;
        using var relay = new TcpRelay(TestBroker.Uri.Port);
        var queue = $"prewire.rabbitmq-tests.{Guid.NewGuid():N}";
        var session = await OpenThroughAsync(relay, queue, Timeout.InfiniteTimeSpan, ct);

        // The broker's confirm, and all it sends after, held on the way back: the publish waits for it.
        relay.Hold();
        var publish = session.PublishAsync("", queue, mandatory: true, new BasicProperties { MessageId = "m-1" }, "m"u8.ToArray(), deadLetter: false, ct);
        await Task.Delay(500, ct);
        Assert.False(publish.IsCompleted);

        // As a publisher that found the connection lost does: the session goes while others still wait.
        var disposing = session.DisposeAsync().AsTask();
        var e = await Assert.ThrowsAsync<AmqpException>(() => publish.WaitAsync(TimeSpan.FromSeconds(5), ct));
        Assert.True(e.ConnectionLost, e.Message);
        Assert.Contains("the session was disposed", e.Message, StringComparison.Ordinal);
        Assert.True(session.Closed.IsCompletedSuccessfully);

        relay.Release();
        await disposing.WaitAsync(TimeSpan.FromSeconds(60), ct);
    }

    [Fact]
    public async Task A_publish_whose_confirm_is_overdue_fails_as_a_lost_connection_and_the_session_is_closed()
    {
        var ct = TestContext.Current.CancellationToken;
        using var relay = new TcpRelay(TestBroker.Uri.Port);
        var queue = $"prewire.rabbitmq-tests.{Guid.NewGuid():N}";
        var session = await OpenThroughAsync(relay, queue, TimeSpan.FromSeconds(1), ct);
        await session.PublishAsync("", queue, mandatory: true, new BasicProperties { MessageId = "m-1" }, "m"u8.ToArray(), deadLetter: false, ct);

        // The confirm held on the way back, as RabbitMQ.Client 7.2 sometimes never delivers one: the publish
        // gives up after the timeout instead of waiting for ever, and takes the session with it.
        relay.Hold();
        var e = await Assert.ThrowsAsync<AmqpException>(() =>
            session.PublishAsync("", queue, mandatory: true, new BasicProperties { MessageId = "m-2" }, "m"u8.ToArray(), deadLetter: false, ct).WaitAsync(TimeSpan.FromSeconds(30), ct));
        Assert.True(e.ConnectionLost, e.Message);
        Assert.Contains("no publisher confirm within 1 s", e.Message, StringComparison.Ordinal);
        Assert.True(session.Closed.IsCompletedSuccessfully);

        relay.Release();
        await session.DisposeAsync().AsTask().WaitAsync(TimeSpan.FromSeconds(60), ct);
    }

    [Fact]
    public async Task Disposing_a_session_whose_broker_went_silent_takes_seconds_not_RabbitMQ_Clients_20_s_timeouts()
    {
        var ct = TestContext.Current.CancellationToken;
        using var relay = new TcpRelay(TestBroker.Uri.Port);
        var session = await OpenThroughAsync(relay, $"prewire.rabbitmq-tests.{Guid.NewGuid():N}", Timeout.InfiniteTimeSpan, ct);

        // Nothing comes back from the broker: no close-ok for the channel nor the connection. A
        // reconnection starts by disposing the lost session, so this is how long it waits to begin.
        relay.Hold();
        var disposing = System.Diagnostics.Stopwatch.StartNew();
        await session.DisposeAsync().AsTask().WaitAsync(TimeSpan.FromSeconds(60), ct);
        Assert.InRange(disposing.Elapsed, TimeSpan.Zero, TimeSpan.FromSeconds(5));
        relay.Release();
    }

    [Fact]
    public async Task A_disposal_that_never_ends_is_left_after_its_limit_and_one_that_fails_in_time_throws()
    {
        var ct = TestContext.Current.CancellationToken;
        var never = new TaskCompletionSource();
        var waited = System.Diagnostics.Stopwatch.StartNew();
        await RabbitMqSession.WithinAsync(never.Task, TimeSpan.FromMilliseconds(200)).WaitAsync(TimeSpan.FromSeconds(10), ct);
        Assert.InRange(waited.Elapsed, TimeSpan.FromMilliseconds(150), TimeSpan.FromSeconds(5));

        await Assert.ThrowsAsync<IOException>(() => RabbitMqSession.WithinAsync(Task.FromException(new IOException("reset")), TimeSpan.FromSeconds(1)));
    }

    [Fact]
    public void A_confirm_timeout_is_positive_or_infinite()
    {
        Assert.Throws<ArgumentOutOfRangeException>(() => new BrokerSessionOptions { Endpoints = [], Queue = "q", ConfirmTimeout = TimeSpan.Zero });
        Assert.Equal(Timeout.InfiniteTimeSpan, new BrokerSessionOptions { Endpoints = [], Queue = "q", ConfirmTimeout = Timeout.InfiniteTimeSpan }.ConfirmTimeout);
    }

    // With confirms, through the relay, so a test can hold what the broker sends back.
    private static async Task<RabbitMqSession> OpenThroughAsync(TcpRelay relay, string queue, TimeSpan confirmTimeout, CancellationToken ct)
    {
        var uri = AmqpUri.Parse($"amqp://guest:guest@127.0.0.1:{relay.Port}/");
        var options = new BrokerSessionOptions { Endpoints = [uri], Queue = queue, ClientName = "prewire-rabbitmq-tests", Confirms = true, ConfirmTimeout = confirmTimeout };
        return RabbitMqSession.Of(await RabbitMqSession.OpenAsync(options, uri, ct));
    }
}
