using System.Text;
using Prewire.Amqp;
using Prewire.Messaging;
using Prewire.Pipeline;
using BasicProperties = RabbitMQ.Client.BasicProperties;

namespace Prewire.RabbitMQ;

/// <summary>The adapter against the real broker: dispatch publishes with confirms, the receiver acks only what its pipeline handled.</summary>
public sealed class RoundTripTests
{
    [Fact]
    public async Task A_dispatched_message_is_received_with_its_headers_and_acknowledged()
    {
        var queue = $"prewire.rabbitmq-tests.{Guid.NewGuid():N}";
        await using var connection = await ConnectAsync(queue);
        await using var dispatch = new RabbitMqDispatch();
        dispatch.Attach(connection);
        var outgoing = new PipelineBuilder().Register("dispatch", dispatch, "publishes").Build<DispatchContext>();
        var headers = new Dictionary<string, string> { [MessageHeaders.ContentType] = "text/plain" };
        await outgoing.Invoke(new DispatchContext(new OutgoingLogicalContext("m-1", "", TestContext.Current.CancellationToken), "", queue, "m-1", headers, new System.Buffers.ReadOnlySequence<byte>("héllo"u8.ToArray())));

        // Read while the pipeline runs: the receiver reuses the context afterwards, as the body's memory.
        (string Id, string Body, string Type)? received = null;
        var incoming = new PipelineBuilder().Register("handle", new Handle(c => received = (c.MessageId, Encoding.UTF8.GetString(c.Body), c.Headers[MessageHeaders.ContentType])), "records").Build<TransportReceiveContext>();
        var result = await new RabbitMqReceiver(connection, incoming, (_, e) => Assert.Fail(e.Message)).ReceiveAsync(1, prefetch: 10, TestContext.Current.CancellationToken);

        Assert.Equal(new ReceiveResult(Handled: 1, 0, 0, 0, 0), result);
        Assert.Equal(("m-1", "héllo", "text/plain"), received);
        Assert.Equal(0u, await RabbitMqSession.Of(connection.Session).Channel.MessageCountAsync(queue, TestContext.Current.CancellationToken));
    }

    [Fact]
    public async Task A_message_whose_pipeline_fails_is_rejected_to_the_dead_letter_queue_not_acknowledged_as_handled()
    {
        var queue = $"prewire.rabbitmq-tests.{Guid.NewGuid():N}";
        await using var connection = await ConnectAsync(queue);
        var session = connection.Session;
        await RabbitMqSession.Of(session).Channel.BasicPublishAsync("", queue, mandatory: true, new BasicProperties(), "bad"u8.ToArray(), TestContext.Current.CancellationToken);
        await RabbitMqSession.Of(session).Channel.BasicPublishAsync("", queue, mandatory: true, new BasicProperties(), "good"u8.ToArray(), TestContext.Current.CancellationToken);

        var rejected = new List<string>();
        var incoming = new PipelineBuilder().Register("handle", new Handle(c =>
        {
            if (c.Body.FirstSpan.SequenceEqual("bad"u8)) throw new InvalidDataException("bad body");
        }), "fails on 'bad'").Build<TransportReceiveContext>();
        var result = await new RabbitMqReceiver(connection, incoming, (id, e) => rejected.Add(e.Message)).ReceiveAsync(1, prefetch: 10, TestContext.Current.CancellationToken);

        Assert.Equal(new ReceiveResult(Handled: 1, 0, 0, Rejected: 1, 0), result);
        Assert.Equal(["bad body"], rejected);
        // The broker dead-letters a rejected message to the queue's dead-letter queue.
        Assert.Equal(1u, await MessageCountEventuallyAsync(connection, session.Options.DeadLetterQueue, 1));
    }

    [Fact]
    public async Task It_takes_exactly_the_count_and_leaves_the_rest_in_the_queue_whatever_the_prefetch()
    {
        var queue = $"prewire.rabbitmq-tests.{Guid.NewGuid():N}";
        await using (var connection = await ConnectFilledAsync(queue, 50))
        {
            var seen = 0;
            var incoming = new PipelineBuilder().Register("handle", new Handle(_ => seen++), "counts").Build<TransportReceiveContext>();
            var result = await new RabbitMqReceiver(connection, incoming, (_, e) => Assert.Fail(e.Message)).ReceiveAsync(5, prefetch: 0, TestContext.Current.CancellationToken);
            Assert.Equal((5, 5), (result.Handled, seen));
        }

        // The deliveries sent ahead and not taken went back when the channel closed (a quorum queue
        // requeues them through its log, just after the close: counted until they are all back).
        await using var after = await ConnectAsync(queue);
        Assert.Equal(45u, await MessageCountEventuallyAsync(after, queue, 45));
    }

    [Fact]
    public async Task A_stop_takes_no_more_deliveries_and_returns_what_was_acknowledged()
    {
        var queue = $"prewire.rabbitmq-tests.{Guid.NewGuid():N}";
        await using (var connection = await ConnectFilledAsync(queue, 20))
        {
            using var stopping = new CancellationTokenSource();
            var seen = 0;
            var incoming = new PipelineBuilder().Register("handle", new Handle(_ =>
            {
                if (++seen == 3) stopping.Cancel();
            }), "stops at the third").Build<TransportReceiveContext>();
            var handled = (await new RabbitMqReceiver(connection, incoming, (_, e) => Assert.Fail(e.Message)).ReceiveAsync(20, prefetch: 5, stopping.Token)).Handled;
            // The third was being handled when the stop came: it finished and was acknowledged.
            Assert.Equal((3, 3), (handled, seen));
        }

        await using var after = await ConnectAsync(queue);
        Assert.Equal(17u, await MessageCountEventuallyAsync(after, queue, 17));
    }

    internal static async Task<BrokerConnection> ConnectFilledAsync(string queue, int messages, string clientName = "prewire-rabbitmq-tests")
    {
        var connection = await ConnectAsync(queue, clientName);
        for (var i = 0; i < messages; i++)
        {
            await RabbitMqSession.Of(connection.Session).Channel.BasicPublishAsync("", queue, mandatory: true, new BasicProperties { MessageId = $"m-{i}" }, "m"u8.ToArray(),
                TestContext.Current.CancellationToken);
        }
        return connection;
    }

    internal static Task<BrokerConnection> ConnectAsync(string queue, string clientName = "prewire-rabbitmq-tests") =>
        BrokerConnection.OpenAsync(new BrokerSessionOptions { Endpoints = [AmqpUri.Parse(TestBroker.Uri.OriginalString)], Queue = queue, ClientName = clientName, Confirms = true }, RabbitMqSession.OpenAsync,
            new ReconnectPolicy(), TestContext.Current.CancellationToken);

    // Dead-lettering by the broker happens just after the reject is acknowledged, and a quorum queue takes
    // back a closed channel's unacknowledged deliveries just after the close: read until the count is
    // expected, for at most 5 s (a message lost never comes back).
    internal static async Task<uint> MessageCountEventuallyAsync(BrokerConnection connection, string queue, uint expected)
    {
        var count = 0u;
        for (var i = 0; i < 50 && (count = await RabbitMqSession.Of(connection.Session).Channel.MessageCountAsync(queue, TestContext.Current.CancellationToken)) != expected; i++)
            await Task.Delay(100, TestContext.Current.CancellationToken);
        return count;
    }

    private sealed class Handle(Action<TransportReceiveContext> handle) : PipelineTerminator<TransportReceiveContext>
    {
        protected override ValueTask Terminate(TransportReceiveContext context)
        {
            handle(context);
            return default;
        }
    }
}
