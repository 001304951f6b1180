using System.Collections.Concurrent;
using System.Diagnostics.Metrics;
using Prewire.Amqp;
using Prewire.Messaging;
using Prewire.Pipeline;

namespace Prewire.RabbitMQ;

/// <summary>
/// The conventions' messaging metrics, as a <see cref="MeterListener"/> (what OpenTelemetry's SDK uses)
/// sees them, whichever client publishes and receives. Alone, as the trace tests: a listener is process-wide.
/// </summary>
[Collection(nameof(TraceContextTests))]
public sealed class MessagingMetricsTests
{
    [Theory]
    [InlineData("prewire")]
    [InlineData("rabbitmq")]
    public async Task Publishes_and_deliveries_are_counted_and_timed_with_the_conventions_names_units_and_attributes(string client)
    {
        var ct = TestContext.Current.CancellationToken;
        var queue = $"prewire.metrics-tests.{Guid.NewGuid():N}";
        await using var connection = await TraceContextTests.ConnectAsync(client, queue);
        await using BrokerDispatch dispatch = client == "prewire" ? new AmqpPublisherDispatch() : new RabbitMqDispatch();
        if (dispatch is AmqpPublisherDispatch own) await own.OpenAsync(AmqpSession.Of(connection.Session).Connection, ct);
        else ((RabbitMqDispatch)dispatch).Attach(connection);
        var outgoing = new PipelineBuilder().Register("dispatch", dispatch, "publishes").Build<DispatchContext>();

        using var metrics = new Measurements();
        await outgoing.Invoke(TraceContextTests.Message(queue, "fails"));
        await outgoing.Invoke(TraceContextTests.Message(queue, "ok"));
        // Mandatory, to a routing key no queue is bound to: the broker returns it, the publish fails.
        await Assert.ThrowsAsync<AmqpException>(async () => await outgoing.Invoke(TraceContextTests.Message("no.such.queue", "returned")));
        var incoming = new PipelineBuilder().Register("handle", new TraceContextTests.Handle(c =>
        {
            if (c.Body.FirstSpan[0] == (byte)'f') throw new InvalidDataException("the body says fail");
        }), "fails on 'fails'").Build<TransportReceiveContext>();
        var receiver = TraceContextTests.Receiver(client, connection, incoming);
        Assert.Equal(new ReceiveResult(1, 0, 0, 1, 0), await receiver.ReceiveAsync(1, prefetch: 1, ct));

        Assert.Equal(
            [
                "messaging.client.consumed.messages {message} 1 receive deliver " + queue + " -",
                "messaging.client.consumed.messages {message} 1 receive deliver " + queue + " -",
                "messaging.client.operation.duration s ok send publish amq.default -",
                "messaging.client.operation.duration s ok send publish amq.default -",
                "messaging.client.operation.duration s ok send publish amq.default Prewire.Amqp.AmqpException",
                "messaging.client.sent.messages {message} 1 send publish amq.default -",
                "messaging.client.sent.messages {message} 1 send publish amq.default -",
                "messaging.client.sent.messages {message} 1 send publish amq.default Prewire.Amqp.AmqpException",
                "messaging.process.duration s ok process process " + queue + " -",
                "messaging.process.duration s ok process process " + queue + " System.IO.InvalidDataException",
            ],
            metrics.Recorded.Order(StringComparer.Ordinal));
    }

    // Each measurement as "name unit value type operation destination error-type"; a duration's value is "ok" when it is a time in seconds under 10.
    private sealed class Measurements : IDisposable
    {
        private readonly ConcurrentQueue<string> _recorded = new();
        private readonly MeterListener _listener = new();

        public Measurements()
        {
            _listener.InstrumentPublished = (instrument, listener) =>
            {
                if (instrument.Meter.Name == MessagingTelemetry.MeterName) listener.EnableMeasurementEvents(instrument);
            };
            _listener.SetMeasurementEventCallback<long>((instrument, value, tags, _) => Record(instrument, $"{value}", tags));
            _listener.SetMeasurementEventCallback<double>((instrument, value, tags, _) => Record(instrument, value is > 0 and < 10 ? "ok" : $"{value}", tags));
            _listener.Start();
        }

        public IReadOnlyList<string> Recorded => [.. _recorded];

        public void Dispose() => _listener.Dispose();

        private void Record(Instrument instrument, string value, ReadOnlySpan<KeyValuePair<string, object?>> tags)
        {
            var named = new Dictionary<string, object?>();
            foreach (var (key, tag) in tags) named[key] = tag;
            Assert.Equal("rabbitmq", named["messaging.system"]);
            _recorded.Enqueue($"{instrument.Name} {instrument.Unit} {value} {named["messaging.operation.type"]} {named["messaging.operation.name"]} {named["messaging.destination.name"]} {named.GetValueOrDefault("error.type") ?? "-"}");
        }
    }
}
