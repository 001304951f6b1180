using Prewire.Amqp;
using Prewire.Pipeline;

namespace Prewire.Messaging;

/// <summary>
/// The receiver on our client when the broker closes its connection (320 CONNECTION_FORCED, as a node
/// shutting down does) or the socket is reset under it: a loss to ride out, never the end of consuming. The consumer's channel fails
/// with the connection's close before the session reports it lost, so the receiver must tell the two
/// apart by the reason, not by which it saw first (a CI run on arm64 lost that race once).
/// </summary>
[Collection(nameof(BrokerStateTests))]
public sealed class AmqpReceiverConnectionLossTests
{
    private const int Closes = 10;

    [Fact]
    public Task A_connection_the_broker_closes_is_replaced_and_consuming_goes_on_every_time() =>
        RidesOutLossesAsync(TestBroker.Uri, () => TestBroker.CtlAsync("close_all_connections", "closed by the test"));

    [Fact]
    public async Task A_connection_reset_under_the_consumer_is_replaced_and_consuming_goes_on_every_time()
    {
        // No close frame: the consumer fails with the socket's error, and that is a loss too.
        using var relay = new ResettingRelay(TestBroker.Uri.Port);
        await RidesOutLossesAsync(new UriBuilder(TestBroker.Uri) { Port = relay.Port }.Uri, () =>
        {
            relay.ResetAll();
            return Task.CompletedTask;
        });
    }

    // Consumes through endpoint, loses the connection Closes times, and expects a reconnect for each.
    private static async Task RidesOutLossesAsync(Uri endpoint, Func<Task> lose)
    {
        var ct = TestContext.Current.CancellationToken;
        var options = new BrokerSessionOptions { Endpoints = [AmqpUri.Parse(endpoint.OriginalString)], Queue = $"test.receiver.loss.{Guid.NewGuid():N}" };
        await using var connection = await BrokerConnection.OpenAsync(options, AmqpSession.OpenAsync, new ReconnectPolicy(), ct);
        using var consuming = new SemaphoreSlim(0);
        var pipeline = new PipelineBuilder().Register("handle", new Handles(), "handles nothing: no message is sent").Build<TransportReceiveContext>();
        var receiver = new AmqpReceiver(connection, pipeline, (_, e) => Assert.Fail(e.Message)) { Consuming = on => { if (on) consuming.Release(); } };
        using var stop = CancellationTokenSource.CreateLinkedTokenSource(ct);
        var receiving = receiver.ReceiveAsync(count: null, prefetch: 10, stop.Token);

        for (var lost = 0; lost < Closes; lost++)
        {
            await ConsumingAgainAsync(consuming, receiving, lost);
            await lose();
        }
        await ConsumingAgainAsync(consuming, receiving, Closes);
        await stop.CancelAsync();

        Assert.Equal(Closes, (await receiving).Reconnects);
    }

    private static async Task ConsumingAgainAsync(SemaphoreSlim consuming, Task<ReceiveResult> receiving, int lost)
    {
        var again = consuming.WaitAsync(TimeSpan.FromSeconds(30), TestContext.Current.CancellationToken);
        await Task.WhenAny(again, receiving);
        Assert.False(receiving.IsCompleted, $"the receiver ended after {lost} losses: {receiving.Exception?.InnerException?.Message}");
        Assert.True(await again, $"not consuming again within 30 s after {lost} losses");
    }

    private sealed class Handles : PipelineTerminator<TransportReceiveContext>
    {
        protected override ValueTask Terminate(TransportReceiveContext context) => ValueTask.CompletedTask;
    }
}
