using System.Globalization;
using Prewire.Amqp;
using Prewire.Pipeline;

namespace Prewire.Messaging;

/// <summary>
/// What the receiver and the incoming contexts add to our consumer per delivery, measured process-wide:
/// alone, after everything else.
/// </summary>
[Collection(nameof(BrokerStateTests))]
public sealed class AmqpReceiverBrokerStateTests
{
    [Fact]
    public async Task A_delivery_through_the_receiver_and_its_physical_and_logical_contexts_costs_nothing_its_hex_id_read_as_a_value()
    {
        var ct = TestContext.Current.CancellationToken;
        await using var publishing = await AmqpConnection.ConnectAsync(Amqp.AmqpConsumerTests.Options(), ct);
        // The session declares the queue, with its dead-letter exchange, as the apps have it.
        var options = new BrokerSessionOptions { Endpoints = [AmqpUri.Parse(TestBroker.Uri.OriginalString)], Queue = $"test.receiver.{Guid.NewGuid():N}" };
        await using var connection = await BrokerConnection.OpenAsync(options, AmqpSession.OpenAsync, new ReconnectPolicy(), ct);
        var queue = options.Queue;
        await using var publisher = await AmqpPublisher.OpenAsync(publishing, cancellationToken: ct);
        // As our dispatch sends a message: its id, a content type and the time sent as headers.
        var guid = Guid.NewGuid();
        var id = guid.ToString("N");
        var properties = new BasicProperties
        {
            MessageId = id,
            Headers = new()
            {
                [MessageHeaders.MessageId] = id,
                [MessageHeaders.ContentType] = "text/plain",
                [MessageHeaders.SentAt] = DateTimeOffset.UtcNow.ToString("O", CultureInfo.InvariantCulture),
            },
        };
        var measure = new ConsumeAllocations(publisher, queue, properties);
        var handler = new ReadsHeaders(measure);
        var toPhysical = new ToPhysical(guid);
        var pipeline = new PipelineBuilder()
            .Register("physical", toPhysical, "the delivery as the physical message, its id checked as a value")
            .Register("logical", new ToLogical(), "the physical message as the logical one (a message object that costs nothing)")
            .Register("handle", handler, "reads the headers a handler reads, and counts")
            .Build<TransportReceiveContext>();
        var receiver = new AmqpReceiver(connection, pipeline, (_, e) => Assert.Fail(e.Message));
        using var stop = CancellationTokenSource.CreateLinkedTokenSource(ct);
        var receiving = receiver.ReceiveAsync(count: null, prefetch: 100, stop.Token);

        // A quarter of the windows: the session's queue is durable, so each confirm waits on the broker's disk.
        var (shortWindow, longWindow) = await measure.MeasureAsync(256, scale: 4);
        await stop.CancelAsync();
        var result = await receiving;

        // 1,000 more messages, nothing more: the id (32 hex digits) a value, no string until asked; the
        // transport's contexts come from a pool, and each brings back the physical and logical contexts kept with it.
        // (The header values repeat here, one properties object published again and again: what a value
        // that changes costs, nothing until asked, is DeliveryHeaderReaderTests'.)
        Assert.True(longWindow <= shortWindow, $"1,000 more messages through the receiver allocated {longWindow - shortWindow} B ({shortWindow} B for 250, {longWindow} B for 1,250)");
        Assert.Equal((0, 0, 0L), (toPhysical.WrongIds, handler.Unread, result.Rejected));
    }

    private sealed class ToPhysical(Guid id) : StageConnector<TransportReceiveContext, IncomingPhysicalContext>
    {
        public int WrongIds { get; private set; }

        public override ValueTask Invoke(TransportReceiveContext context, Func<IncomingPhysicalContext, ValueTask> next)
        {
            if (!context.TryGetMessageId(out var read) || read != id) WrongIds++;
            return next(context.ToPhysical());
        }
    }

    private sealed class ToLogical : StageConnector<IncomingPhysicalContext, IncomingLogicalContext>
    {
        private static readonly object _message = new();

        public override ValueTask Invoke(IncomingPhysicalContext context, Func<IncomingLogicalContext, ValueTask> next) => next(context.ToLogical(_message));
    }

    private sealed class ReadsHeaders(ConsumeAllocations measure) : PipelineTerminator<IncomingLogicalContext>
    {
        public int Unread { get; private set; }

        protected override ValueTask Terminate(IncomingLogicalContext context)
        {
            if (!context.Headers.TryGetValue(MessageHeaders.ContentType, out _) || !MessageHeaders.TryGetSentAt(context.Headers, out _)) Unread++;
            measure.Count();
            return ValueTask.CompletedTask;
        }
    }
}
