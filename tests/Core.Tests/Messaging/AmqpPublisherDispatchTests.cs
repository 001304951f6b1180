using System.Buffers;
using System.Text;
using Prewire.Amqp;
using Prewire.Pipeline;
using RabbitMQ.Client;

namespace Prewire.Messaging;

/// <summary>The zero-copy dispatch against the real broker; RabbitMQ.Client reads what it sent.</summary>
public sealed class AmqpPublisherDispatchTests
{
    [Fact]
    public async Task The_envelope_arrives_as_headers_and_properties_with_each_messages_own_id_and_time_sent()
    {
        var ct = TestContext.Current.CancellationToken;
        var queue = $"test.{Guid.NewGuid():N}";
        await using var official = await OfficialClient.ConnectAsync();
        await using var channel = await official.CreateChannelAsync(cancellationToken: ct);
        await channel.QueueDeclareAsync(queue, durable: false, exclusive: false, autoDelete: false, cancellationToken: ct);
        await using var dispatch = new AmqpPublisherDispatch();
        await dispatch.ConnectAsync(new AmqpPublisherOptions { Uri = AmqpUri.Parse(TestBroker.Uri.OriginalString), ClientName = "prewire-tests" }, ct);
        var pipeline = new PipelineBuilder().Register("dispatch", dispatch, "publishes").Build<DispatchContext>();

        // One after another: each publish reuses the last one's pooled properties and bytes. An id given
        // as a string, one given as a value (formatted into the frame), one given as a value whose string
        // was made before the dispatch (then the string goes).
        Guid[] guids = [Guid.NewGuid(), Guid.NewGuid()];
        string[] ids = ["m0", guids[0].ToString("N"), guids[1].ToString("N")];
        DateTimeOffset[] times = [new(2026, 11, 22, 7, 0, 0, TimeSpan.Zero), new DateTimeOffset(2027, 1, 2, 3, 4, 5, TimeSpan.FromHours(2)).AddTicks(1_234_567), DateTimeOffset.UnixEpoch];
        for (var i = 0; i < ids.Length; i++)
        {
            using var message = i == 0 ? OutgoingLogicalContext.Rent(ids[0], "", ct) : OutgoingLogicalContext.Rent(guids[i - 1], "", ct);
            message.Headers[MessageHeaders.ContentType] = "text/plain";
            message.SentAt = times[i];
            var dispatched = message.ToPhysical(new ReadOnlySequence<byte>(Encoding.UTF8.GetBytes($"body {i}"))).ToDispatch("", queue);
            Assert.Equal(i > 0, dispatched.TryGetMessageId(out _));
            if (i == 2) Assert.Equal(ids[2], dispatched.MessageId);
            Assert.False(i == 2 && dispatched.TryGetMessageId(out _), "once its string is made, the id is read as a string");
            await pipeline.Invoke(dispatched);
        }

        for (var i = 0; i < ids.Length; i++)
        {
            var received = await channel.BasicGetAsync(queue, autoAck: true, ct);
            Assert.NotNull(received);
            var headers = received.BasicProperties.Headers!;
            Assert.Equal((ids[i], "text/plain", $"body {i}"), (received.BasicProperties.MessageId, received.BasicProperties.ContentType, Encoding.UTF8.GetString(received.Body.Span)));
            Assert.Equal(ids[i], Encoding.UTF8.GetString((byte[])headers[MessageHeaders.MessageId]!));
            Assert.Equal(times[i].ToString("O", System.Globalization.CultureInfo.InvariantCulture), Encoding.UTF8.GetString((byte[])headers[MessageHeaders.SentAt]!));
        }
        await channel.QueueDeleteAsync(queue, cancellationToken: ct);
    }
}
