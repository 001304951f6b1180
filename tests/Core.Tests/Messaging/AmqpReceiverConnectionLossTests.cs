using Prewire.Amqp;
using Prewire.Pipeline;

namespace Prewire.Messaging;

/// <summary>
/// The receiver on our client when the broker closes its connection (320 CONNECTION_FORCED, as a node
/// shutting down does): a loss to ride out, never the end of consuming. The consumer's channel fails
/// with the connection's close before the session reports it lost, so the receiver must tell the two
/// apart by the reason, not by which it saw first (a CI run on arm64 lost that race once).
/// </summary>
[Collection(nameof(BrokerStateTests))]
public sealed class AmqpReceiverConnectionLossTests
{
    private const int Closes = 10;

    [Fact]
    public async Task A_connection_the_broker_closes_is_replaced_and_consuming_goes_on_every_time()
    {
        var ct = TestContext.Current.CancellationToken;
        var options = new BrokerSessionOptions { Endpoints = [AmqpUri.Parse(TestBroker.Uri.OriginalString)], Queue = $"test.receiver.loss.{Guid.NewGuid():N}" };
        await using var connection = await BrokerConnection.OpenAsync(options, AmqpSession.OpenAsync, new ReconnectPolicy(), ct);
        using var consuming = new SemaphoreSlim(0);
        var pipeline = new PipelineBuilder().Register("handle", new Handles(), "handles nothing: no message is sent").Build<TransportReceiveContext>();
        var receiver = new AmqpReceiver(connection, pipeline, (_, e) => Assert.Fail(e.Message)) { Consuming = on => { if (on) consuming.Release(); } };
        using var stop = CancellationTokenSource.CreateLinkedTokenSource(ct);
        var receiving = receiver.ReceiveAsync(count: null, prefetch: 10, stop.Token);

        for (var closed = 0; closed < Closes; closed++)
        {
            await ConsumingAgainAsync(consuming, receiving, closed);
            await TestBroker.CtlAsync("close_all_connections", "closed by the test");
        }
        await ConsumingAgainAsync(consuming, receiving, Closes);
        await stop.CancelAsync();

        Assert.Equal(Closes, (await receiving).Reconnects);
    }

    private static async Task ConsumingAgainAsync(SemaphoreSlim consuming, Task<ReceiveResult> receiving, int closed)
    {
        var again = consuming.WaitAsync(TimeSpan.FromSeconds(30), TestContext.Current.CancellationToken);
        await Task.WhenAny(again, receiving);
        Assert.False(receiving.IsCompleted, $"the receiver ended after {closed} closes: {receiving.Exception?.InnerException?.Message}");
        Assert.True(await again, $"not consuming again within 30 s after {closed} closes");
    }

    private sealed class Handles : PipelineTerminator<TransportReceiveContext>
    {
        protected override ValueTask Terminate(TransportReceiveContext context) => ValueTask.CompletedTask;
    }
}
