using RabbitMQ.Client;

namespace Prewire.Amqp;

/// <summary>Our publisher against the real broker; RabbitMQ.Client consumes and compares.</summary>
public sealed class AmqpPublisherTests
{
    private static AmqpPublisherOptions Options(AmqpUri? uri = null, int channels = 1) => new() { Uri = uri ?? AmqpUri.Parse(TestBroker.Uri.OriginalString), ClientName = "prewire-tests", Channels = channels };

    [Theory]
    [InlineData(1)]
    [InlineData(3)]
    public async Task Messages_of_every_size_arrive_byte_for_byte_with_their_properties(int channels)
    {
        var ct = TestContext.Current.CancellationToken;
        var queue = $"test.{Guid.NewGuid():N}";
        await using var official = await OfficialClient.ConnectAsync();
        await using var channel = await official.CreateChannelAsync(cancellationToken: ct);
        await channel.QueueDeclareAsync(queue, durable: false, exclusive: false, autoDelete: false, cancellationToken: ct);

        await using var publisher = await AmqpPublisher.ConnectAsync(Options(channels: channels), ct);
        Assert.Equal(channels, publisher.Channels);
        var frameMax = (int)publisher.FrameMax;
        int[] sizes = [0, 1, 100, frameMax - 9, frameMax - 8, frameMax - 7, frameMax, frameMax + 1, 3 * frameMax, 1 << 20];
        var bodies = sizes.Select((size, i) => { var b = new byte[size]; new Random(i).NextBytes(b); return b; }).ToArray();

        // Four publishers at once, each message awaited until confirmed; one in three as a multi-segment body.
        await Task.WhenAll(Enumerable.Range(0, 4).Select(worker => Task.Run(async () =>
        {
            for (var i = worker; i < bodies.Length; i += 4)
            {
                var properties = new BasicProperties
                {
                    MessageId = $"m{i}",
                    ContentType = "application/octet-stream",
                    DeliveryMode = 2,
                    Headers = new() { ["index"] = i, ["name"] = "prewire", ["nested"] = new Dictionary<string, object?> { ["ok"] = true } },
                };
                if (i % 3 == 0) await publisher.PublishAsync("", queue, properties, Prewire.Framing.FrameTestKit.Segmented(bodies[i], 1000), mandatory: true, ct);
                else await publisher.PublishAsync("", queue, properties, bodies[i], mandatory: true, ct);
            }
        }, ct)));

        var received = new Dictionary<string, BasicGetResult>();
        while (received.Count < bodies.Length)
        {
            var message = await channel.BasicGetAsync(queue, autoAck: true, ct);
            Assert.NotNull(message);
            received[message.BasicProperties.MessageId!] = message;
        }
        for (var i = 0; i < bodies.Length; i++)
        {
            var message = received[$"m{i}"];
            Assert.True(bodies[i].AsSpan().SequenceEqual(message.Body.Span), $"body of m{i} ({bodies[i].Length} bytes) differs");
            Assert.Equal("application/octet-stream", message.BasicProperties.ContentType);
            Assert.Equal(DeliveryModes.Persistent, message.BasicProperties.DeliveryMode);
            Assert.Equal(i, message.BasicProperties.Headers!["index"]);
            Assert.Equal("prewire"u8.ToArray(), (byte[])message.BasicProperties.Headers["name"]!);
            Assert.Equal(true, ((Dictionary<string, object?>)message.BasicProperties.Headers["nested"]!)["ok"]);
        }
    }

    [Theory]
    [InlineData(100)]
    [InlineData(1 << 20)]
    public async Task A_publish_whose_header_cannot_be_written_fails_alone_and_its_channel_serves_the_next(int bodySize)
    {
        var ct = TestContext.Current.CancellationToken;
        await using var publisher = await AmqpPublisher.ConnectAsync(Options(), ct);
        var body = new byte[bodySize];

        // A short string holds 255 bytes: the header fails before anything of the publish is sent.
        var tooLong = new BasicProperties { MessageId = new string('x', 300) };
        await Assert.ThrowsAsync<ArgumentException>(async () => await publisher.PublishAsync("amq.fanout", "", tooLong, body, cancellationToken: ct));

        // One channel: the next publish would wait forever on a channel the failed one kept.
        await publisher.PublishAsync("amq.fanout", "", null, body, cancellationToken: ct).AsTask().WaitAsync(TimeSpan.FromSeconds(10), ct);
    }

    [Theory]
    [InlineData(1)]
    [InlineData(2)]
    public async Task An_unroutable_mandatory_message_fails_as_returned(int channels)
    {
        var ct = TestContext.Current.CancellationToken;
        await using var publisher = await AmqpPublisher.ConnectAsync(Options(channels: channels), ct);
        // Publishes take the channels in turn: with two, the second return arrives on channel 2.
        for (var i = 0; i < channels; i++)
        {
            var e = await Assert.ThrowsAsync<AmqpException>(async () =>
                await publisher.PublishAsync("", $"nowhere.{Guid.NewGuid():N}", null, new byte[10], mandatory: true, ct));
            Assert.Equal((AmqpExceptionKind.Returned, (ushort)312), (e.Kind, e.ReplyCode));
            Assert.Contains("NO_ROUTE", e.Message, StringComparison.Ordinal);
        }

        // The channels stay usable: routable publishes after it are confirmed.
        for (var i = 0; i < channels; i++) await publisher.PublishAsync("amq.fanout", "", null, new byte[1], mandatory: false, ct);
    }

    [Theory]
    [InlineData(1)]
    [InlineData(2)]
    public async Task A_missing_exchange_closes_the_channel_with_the_brokers_words(int channels)
    {
        var ct = TestContext.Current.CancellationToken;
        await using var publisher = await AmqpPublisher.ConnectAsync(Options(channels: channels), ct);
        var e = await Assert.ThrowsAsync<AmqpException>(async () =>
            await publisher.PublishAsync($"missing.{Guid.NewGuid():N}", "rk", null, new byte[10], cancellationToken: ct));
        Assert.Equal((AmqpExceptionKind.ChannelClosed, (ushort)404), (e.Kind, e.ReplyCode));
        Assert.Contains("NOT_FOUND - no exchange 'missing.", e.Message, StringComparison.Ordinal);

        // Later publishes, on any channel, fail at once with the same reason instead of hanging.
        for (var i = 0; i < channels; i++)
        {
            var again = await Assert.ThrowsAsync<AmqpException>(async () =>
                await publisher.PublishAsync("", "rk", null, new byte[1], cancellationToken: ct));
            Assert.Equal(404, again.ReplyCode);
        }
    }

    [Theory]
    [InlineData(0)]
    [InlineData(65536)]
    public async Task A_channel_count_outside_AMQPs_range_is_refused_before_connecting(int channels)
    {
        var e = await Assert.ThrowsAsync<ArgumentOutOfRangeException>(() =>
            AmqpPublisher.ConnectAsync(new AmqpPublisherOptions { Uri = AmqpUri.Parse("amqp://127.0.0.1:1/"), Channels = channels }, TestContext.Current.CancellationToken));
        Assert.Equal(channels, e.ActualValue);
        Assert.Contains("Channels must be 1 to 65535", e.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task A_wrong_password_is_a_clear_authentication_error()
    {
        var wrong = AmqpUri.Parse(new UriBuilder(TestBroker.Uri) { Password = "not-the-password" }.Uri.OriginalString);
        var e = await Assert.ThrowsAsync<AmqpException>(() => AmqpPublisher.ConnectAsync(Options(wrong), TestContext.Current.CancellationToken));
        Assert.Equal((AmqpExceptionKind.ConnectionClosed, (ushort)403), (e.Kind, e.ReplyCode));
        Assert.Contains("ACCESS_REFUSED", e.Message, StringComparison.Ordinal);
        Assert.DoesNotContain("not-the-password", e.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task An_unreachable_broker_names_the_endpoint()
    {
        using var refusing = new Prewire.Testing.RefusingPort();
        var port = refusing.Port;
        var e = await Assert.ThrowsAsync<IOException>(() => AmqpPublisher.ConnectAsync(Options(AmqpUri.Parse($"amqp://guest:secret@127.0.0.1:{port}/")), TestContext.Current.CancellationToken));
        Assert.Equal($"cannot connect to 127.0.0.1:{port}: Connection refused", e.Message);
    }
}
