using Prewire.Amqp;
using Prewire.Harness;
using RabbitMQ.Client;

namespace Prewire.RabbitMQ;

/// <summary>A session's publishes end when the session does, whatever became of their confirms.</summary>
public sealed class BrokerSessionTests
{
    [Fact]
    public async Task A_publish_awaiting_its_confirm_fails_as_a_lost_connection_when_the_session_is_disposed_under_it()
    {
        var ct = TestContext.Current.CancellationToken;
        using var relay = new TcpRelay(TestBroker.AmqpUri.Port);
        var queue = $"prewire.rabbitmq-tests.{Guid.NewGuid():N}";
        var session = await BrokerSession.OpenAsync(new BrokerSessionOptions
        {
            Endpoints = [AmqpUri.Parse($"amqp://guest:guest@127.0.0.1:{relay.Port}/")],
            Queue = queue,
            ClientName = "prewire-rabbitmq-tests",
            Confirms = true,
        }, ct);

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
}
