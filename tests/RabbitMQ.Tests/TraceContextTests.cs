using System.Collections.Concurrent;
using System.Diagnostics;
using System.Text;
using Prewire.Amqp;
using Prewire.Messaging;
using Prewire.Pipeline;
using RabbitMQ.Client;
using RabbitMQ.Client.Events;
using BasicProperties = RabbitMQ.Client.BasicProperties;

namespace Prewire.RabbitMQ;

/// <summary>
/// The trace context crosses the broker in the message headers, read and written as RabbitMQ.Client 7's
/// own instrumentation does: its spans on one side, ours on the other, one trace. A listener is
/// process-wide, so these run alone (no other test's publishes are traced meanwhile).
/// </summary>
[Collection(nameof(TraceContextTests))]
public sealed class TraceContextTests
{
    // The test's own span, as a web request's would be: the parent of what is published under it.
    private const string RequestSource = "Prewire.RabbitMQ.Tests";
    private static readonly ActivitySource _request = new(RequestSource);

    [Fact]
    public async Task A_message_our_client_published_is_delivered_by_RabbitMQ_Client_as_a_child_of_our_publish_span()
    {
        var ct = TestContext.Current.CancellationToken;
        var queue = $"prewire.trace-tests.{Guid.NewGuid():N}";
        await using var connection = await RoundTripTests.ConnectAsync(queue);
        await using var dispatch = new AmqpPublisherDispatch();
        await dispatch.ConnectAsync(new AmqpPublisherOptions { Uri = AmqpUri.Parse(TestBroker.Uri.OriginalString) }, ct);
        var outgoing = new PipelineBuilder().Register("dispatch", dispatch, "publishes").Build<DispatchContext>();

        using var spans = new Spans(MessagingTelemetry.ActivitySourceName, RabbitMQActivitySource.SubscriberSourceName);
        var request = _request.StartActivity("POST /messages/{type}", ActivityKind.Server);
        Assert.NotNull(request);
        using (request)
            await outgoing.Invoke(Message(queue, "traced"));
        var delivered = await DeliverOneAsync(connection, queue);

        var publish = await spans.SingleAsync(MessagingTelemetry.ActivitySourceName, ActivityKind.Producer);
        var deliver = await spans.SingleAsync(RabbitMQActivitySource.SubscriberSourceName, ActivityKind.Consumer);
        Assert.Equal((request.TraceId, request.SpanId), (publish.TraceId, publish.ParentSpanId));
        Assert.Equal((publish.TraceId, publish.SpanId), (deliver.TraceId, deliver.ParentSpanId));
        Assert.Equal(("publish amq.default", "rabbitmq", "send", "publish", "amq.default", queue, "m-traced", 6L),
            (publish.DisplayName, publish.GetTagItem("messaging.system"), publish.GetTagItem("messaging.operation.type"), publish.GetTagItem("messaging.operation.name"),
             publish.GetTagItem("messaging.destination.name"), publish.GetTagItem("messaging.rabbitmq.destination.routing_key"), publish.GetTagItem("messaging.message.id"),
             publish.GetTagItem("messaging.message.body.size")));
        Assert.Equal($"00-{publish.TraceId}-{publish.SpanId}-01", delivered["traceparent"]);

        // Nobody listening: no span, and nothing added to the message.
        spans.Dispose();
        using (_request.StartActivity("untraced"))
            await outgoing.Invoke(Message(queue, "untraced"));
        Assert.False((await DeliverOneAsync(connection, queue)).ContainsKey("traceparent"));
    }

    [Theory]
    [InlineData("prewire")]
    [InlineData("rabbitmq")]
    public async Task A_message_RabbitMQ_Client_published_under_its_span_is_processed_as_its_child_by_either_receiver(string client)
    {
        var ct = TestContext.Current.CancellationToken;
        var queue = $"prewire.trace-tests.{Guid.NewGuid():N}";
        await using var connection = await ConnectAsync(client, queue);
        await using var rabbit = await RoundTripTests.ConnectAsync(queue);

        using var spans = new Spans(MessagingTelemetry.ActivitySourceName, RabbitMQActivitySource.PublisherSourceName);
        using (_request.StartActivity("POST /messages/{type}", ActivityKind.Server))
        {
            await RabbitMqSession.Of(rabbit.Session).Channel.BasicPublishAsync("", queue, mandatory: true, new BasicProperties { MessageId = "m-1" }, "fails"u8.ToArray(), ct);
            await RabbitMqSession.Of(rabbit.Session).Channel.BasicPublishAsync("", queue, mandatory: true, new BasicProperties { MessageId = "m-2" }, "hello"u8.ToArray(), ct);
        }
        // The first fails in the pipeline and is rejected, so its span says why; the second is handled.
        var incoming = new PipelineBuilder().Register("handle", new Handle(c =>
        {
            if (c.Body.FirstSpan[0] == (byte)'f') throw new InvalidDataException("the body says fail");
        }), "fails on 'fails'").Build<TransportReceiveContext>();
        var receiver = Receiver(client, connection, incoming);
        Assert.Equal(new ReceiveResult(1, 0, 0, 1, 0), await receiver.ReceiveAsync(1, prefetch: 1, ct));

        var published = spans.All(RabbitMQActivitySource.PublisherSourceName);
        var processed = spans.All(MessagingTelemetry.ActivitySourceName);
        Assert.Equal(2, published.Count);
        Assert.Equal(2, processed.Count);
        for (var i = 0; i < 2; i++)
        {
            Assert.Equal((ActivityKind.Consumer, $"process {queue}", published[i].TraceId, published[i].SpanId),
                (processed[i].Kind, processed[i].DisplayName, processed[i].TraceId, processed[i].ParentSpanId));
            Assert.Equal(("rabbitmq", "process", queue, $"m-{i + 1}"), (processed[i].GetTagItem("messaging.system"), processed[i].GetTagItem("messaging.operation.type"),
                processed[i].GetTagItem("messaging.destination.name"), processed[i].GetTagItem("messaging.message.id")));
        }
        Assert.Equal((ActivityStatusCode.Error, "the body says fail", typeof(InvalidDataException).FullName, "exception"),
            (processed[0].Status, processed[0].StatusDescription, processed[0].GetTagItem("error.type"), Assert.Single(processed[0].Events).Name));
        Assert.Equal(ActivityStatusCode.Unset, processed[1].Status);
    }

    internal static DispatchContext Message(string queue, string id) =>
        new(new OutgoingLogicalContext($"m-{id}", "", TestContext.Current.CancellationToken), "", queue, $"m-{id}",
            new Dictionary<string, string>(), new System.Buffers.ReadOnlySequence<byte>(Encoding.UTF8.GetBytes(id)));

    // A session on the client the test names: "prewire" (ours) or "rabbitmq".
    internal static Task<BrokerConnection> ConnectAsync(string client, string queue) => client == "prewire" ? ConnectOwnAsync(queue) : RoundTripTests.ConnectAsync(queue);

    internal static BrokerReceiver Receiver(string client, BrokerConnection connection, Pipeline<TransportReceiveContext> incoming) =>
        client == "prewire" ? new AmqpReceiver(connection, incoming, (_, _) => { }) : new RabbitMqReceiver(connection, incoming, (_, _) => { });

    private static Task<BrokerConnection> ConnectOwnAsync(string queue) =>
        BrokerConnection.OpenAsync(new BrokerSessionOptions { Endpoints = [AmqpUri.Parse(TestBroker.Uri.OriginalString)], Queue = queue, Confirms = true }, AmqpSession.OpenAsync,
            new ReconnectPolicy(), TestContext.Current.CancellationToken);

    // One delivery through RabbitMQ.Client's own consumer (its subscriber span around the handler): its headers as text.
    private static async Task<Dictionary<string, string>> DeliverOneAsync(BrokerConnection connection, string queue)
    {
        var channel = RabbitMqSession.Of(connection.Session).Channel;
        var received = new TaskCompletionSource<Dictionary<string, string>>(TaskCreationOptions.RunContinuationsAsynchronously);
        var consumer = new AsyncEventingBasicConsumer(channel);
        consumer.ReceivedAsync += async (_, delivery) =>
        {
            received.TrySetResult((delivery.BasicProperties.Headers ?? new Dictionary<string, object?>())
                .ToDictionary(h => h.Key, h => h.Value is byte[] bytes ? Encoding.UTF8.GetString(bytes) : $"{h.Value}"));
            await channel.BasicAckAsync(delivery.DeliveryTag, multiple: false);
        };
        var tag = await channel.BasicConsumeAsync(queue, autoAck: false, consumer);
        var headers = await received.Task.WaitAsync(TimeSpan.FromSeconds(10), TestContext.Current.CancellationToken);
        await channel.BasicCancelAsync(tag);
        return headers;
    }

    // The spans stopped while it listens, of the sources named, recorded in full.
    private sealed class Spans : IDisposable
    {
        private readonly ConcurrentQueue<Activity> _stopped = new();
        private readonly ActivityListener _listener;

        public Spans(params string[] sources)
        {
            _listener = new ActivityListener
            {
                ShouldListenTo = source => sources.Contains(source.Name) || source.Name == RequestSource,
                Sample = (ref _) => ActivitySamplingResult.AllDataAndRecorded,
                ActivityStopped = _stopped.Enqueue,
            };
            ActivitySource.AddActivityListener(_listener);
        }

        public List<Activity> All(string source) => [.. _stopped.Where(a => a.Source.Name == source).OrderBy(a => a.StartTimeUtc)];

        // A span stops once what it wraps has returned: RabbitMQ.Client's subscriber span after the handler
        // that released the test, so it may still be open when the test looks (seen in CI): wait up to 10 s.
        public async Task<Activity> SingleAsync(string source, ActivityKind kind)
        {
            bool Match(Activity a) => a.Source.Name == source && a.Kind == kind;
            var waited = Stopwatch.StartNew();
            while (!_stopped.Any(Match) && waited.Elapsed < TimeSpan.FromSeconds(10)) await Task.Delay(10);
            return Assert.Single(_stopped, Match);
        }

        public void Dispose() => _listener.Dispose();
    }

    internal sealed class Handle(Action<TransportReceiveContext> handle) : PipelineTerminator<TransportReceiveContext>
    {
        protected override ValueTask Terminate(TransportReceiveContext context)
        {
            handle(context);
            return default;
        }
    }
}

[CollectionDefinition(nameof(TraceContextTests), DisableParallelization = true)]
public sealed class TraceContextTestsCollection;
