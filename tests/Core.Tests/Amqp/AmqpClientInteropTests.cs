using System.Buffers;
using System.Collections.Concurrent;
using System.Text;
using System.Text.Json;
using Prewire.Testing;

namespace Prewire.Amqp;

/// <summary>
/// Our client against two not written here (Debian's python3-pika, <see cref="Pika"/>, and amqp-tools,
/// <see cref="AmqpTools"/>, on librabbitmq): bodies at every frame boundary, both ways, byte for byte,
/// with properties and typed headers.
/// </summary>
public sealed class AmqpClientInteropTests
{
    // Body i of a size, as the script makes it.
    private static byte[] Body(int index, int size)
    {
        var body = new byte[size];
        for (var j = 0; j < size; j++) body[j] = (byte)((index * 31) + (j * 7) + (j >> 8));
        return body;
    }

    private static int[] Sizes(AmqpConnection connection)
    {
        var payload = (int)connection.FrameMax - 8;
        return [0, 1, payload - 1, payload, payload + 1, 2 * payload - 1, 2 * payload, 2 * payload + 1, 131_071, 131_072, 131_073, (1 << 20) - 1, 1 << 20, (1 << 20) + 1];
    }

    // Consumes count deliveries, each kept (body copied out, properties read) under the index its message names.
    private static async Task<ConcurrentDictionary<int, (byte[] Body, BasicProperties Properties)>> ReceiveAsync(AmqpConnection connection, string queue, int count, Func<BasicProperties, int> index)
    {
        var received = new ConcurrentDictionary<int, (byte[] Body, BasicProperties Properties)>();
        var done = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        await using var consumer = await AmqpConsumer.StartAsync(connection, new AmqpConsumerOptions { Queue = queue }, delivery =>
        {
            received[index(delivery.Properties)] = (delivery.Body.ToArray(), delivery.Properties);
            if (received.Count == count) done.TrySetResult();
            return ValueTask.CompletedTask;
        }, TestContext.Current.CancellationToken);
        await done.Task.WaitAsync(TimeSpan.FromSeconds(30), TestContext.Current.CancellationToken);
        return received;
    }

    // Publishes body i of each size with our publisher, properties of its own each.
    private static async Task PublishAsync(AmqpConnection connection, string queue, int[] sizes, Func<int, BasicProperties> properties)
    {
        var ct = TestContext.Current.CancellationToken;
        await using var publisher = await AmqpPublisher.OpenAsync(connection, cancellationToken: ct);
        for (var i = 0; i < sizes.Length; i++) await publisher.PublishAsync("", queue, properties(i), Body(i, sizes[i]), mandatory: true, ct);
    }

    [Fact]
    public async Task What_pika_publishes_our_consumer_receives_byte_for_byte_with_its_properties_and_typed_headers()
    {
        var ct = TestContext.Current.CancellationToken;
        await using var connection = await AmqpConnection.ConnectAsync(AmqpConsumerTests.Options(), ct);
        var queue = await AmqpConsumerTests.NewQueueAsync(connection);
        var sizes = Sizes(connection);
        await Pika.RunAsync(TestBroker.Uri.OriginalString, "publish-sizes", [queue, .. sizes.Select(s => s.ToString(System.Globalization.CultureInfo.InvariantCulture))]);

        var received = await ReceiveAsync(connection, queue, sizes.Length, properties => int.Parse(properties.MessageId.AsSpan(1), provider: null));

        for (var i = 0; i < sizes.Length; i++)
        {
            var (body, properties) = received[i];
            Assert.True(Body(i, sizes[i]).AsSpan().SequenceEqual(body), $"body m{i} ({sizes[i]} bytes) differs: {body.Length} bytes received");
            Assert.Equal(("application/octet-stream", "corr", (byte?)2, 1_700_000_000UL), (properties.ContentType, properties.CorrelationId, properties.DeliveryMode, properties.Timestamp?.UnixSeconds));
            var headers = properties.Headers!;
            // As pika 1.2 encodes Python's values: an int as 'I' (32-bit) when it fits, else 'l', str as a
            // long string, True as 't', Decimal as 'D', datetime as 'T', dict as 'F', list as 'A', None as 'V'
            // (it has no encoding for a float).
            Assert.Equal(42, headers["int"]);
            Assert.Equal(1L << 40, headers["long"]);
            Assert.Equal(-7, headers["negative"]);
            Assert.Equal("héllo", Encoding.UTF8.GetString((byte[])headers["text"]!));
            Assert.Equal(true, headers["flag"]);
            Assert.Equal(new AmqpDecimal(2, 314), headers["decimal"]);
            Assert.Equal(new AmqpTimestamp((ulong)new DateTimeOffset(2026, 11, 25, 12, 0, 0, TimeSpan.Zero).ToUnixTimeSeconds()), headers["when"]);
            var nested = (Dictionary<string, object?>)headers["nested"]!;
            Assert.Equal(("value", (object?)1), (Encoding.UTF8.GetString((byte[])nested["inner"]!), nested["n"]));
            var list = (List<object?>)headers["list"]!;
            Assert.Equal(((object?)1, "two", (object?)false), (list[0], Encoding.UTF8.GetString((byte[])list[1]!), list[2]));
            Assert.Null(headers["none"]);
        }
    }

    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public async Task What_our_publisher_sends_pika_receives_byte_for_byte_over_amqp_and_amqps(bool tls)
    {
        var ct = TestContext.Current.CancellationToken;
        var options = AmqpConsumerTests.Options(tls);
        await using var connection = await AmqpConnection.ConnectAsync(options, ct);
        var queue = await AmqpConsumerTests.NewQueueAsync(connection);
        var sizes = Sizes(connection);
        await PublishAsync(connection, queue, sizes, i => new BasicProperties { MessageId = $"m{i}", ContentType = "application/octet-stream", Headers = new() { ["size"] = sizes[i] } });

        string[] args = [queue, sizes.Length.ToString(System.Globalization.CultureInfo.InvariantCulture)];
        var output = tls
            ? await Pika.RunOverTlsAsync(TestBroker.TlsUri.OriginalString, TestBroker.CaFile, "consume-sizes", args)
            : await Pika.RunAsync(TestBroker.Uri.OriginalString, "consume-sizes", args);
        var lines = output.Split('\n', StringSplitOptions.RemoveEmptyEntries).Select(line => JsonDocument.Parse(line).RootElement).ToList();
        Assert.Equal(sizes.Length, lines.Count);
        foreach (var line in lines)
        {
            var index = int.Parse(line.GetProperty("message_id").GetString().AsSpan(1), provider: null);
            Assert.Equal(sizes[index], line.GetProperty("size").GetInt32());
            Assert.True(line.GetProperty("exact").GetBoolean(), $"pika found body m{index} ({sizes[index]} bytes) changed");
            Assert.Equal(sizes[index].ToString(System.Globalization.CultureInfo.InvariantCulture), line.GetProperty("headers").GetProperty("size").GetString());
        }
    }

    [Fact]
    public async Task What_amqp_tools_publishes_our_consumer_receives_byte_for_byte()
    {
        var ct = TestContext.Current.CancellationToken;
        await using var connection = await AmqpConnection.ConnectAsync(AmqpConsumerTests.Options(), ct);
        var queue = await AmqpConsumerTests.NewQueueAsync(connection);
        var sizes = Sizes(connection);
        for (var i = 0; i < sizes.Length; i++)
        {
            await AmqpTools.PublishAsync(TestBroker.Uri, queue, Body(i, sizes[i]), "-C", "application/octet-stream", "-p", "-H", $"index: {i}");
        }

        // amqp-publish writes a header's value as a long string: bytes, as our full read gives them.
        var received = await ReceiveAsync(connection, queue, sizes.Length, properties => int.Parse(Encoding.UTF8.GetString((byte[])properties.Headers!["index"]!), System.Globalization.CultureInfo.InvariantCulture));

        for (var i = 0; i < sizes.Length; i++)
        {
            var (body, properties) = received[i];
            Assert.True(Body(i, sizes[i]).AsSpan().SequenceEqual(body), $"body {i} ({sizes[i]} bytes) differs: {body.Length} bytes received");
            Assert.Equal(("application/octet-stream", (byte?)2), (properties.ContentType, properties.DeliveryMode));
        }
    }

    [Fact]
    public async Task What_our_publisher_sends_amqp_tools_receives_byte_for_byte()
    {
        var ct = TestContext.Current.CancellationToken;
        await using var connection = await AmqpConnection.ConnectAsync(AmqpConsumerTests.Options(), ct);
        var queue = await AmqpConsumerTests.NewQueueAsync(connection);
        var sizes = Sizes(connection);
        await PublishAsync(connection, queue, sizes, i => new BasicProperties { MessageId = $"m{i}" });

        // One queue, one publisher: amqp-get takes them in the order sent.
        for (var i = 0; i < sizes.Length; i++)
        {
            var body = await AmqpTools.GetAsync(TestBroker.Uri, queue);
            Assert.NotNull(body);
            Assert.True(Body(i, sizes[i]).AsSpan().SequenceEqual(body), $"amqp-get found body {i} ({sizes[i]} bytes) changed: {body.Length} bytes");
        }
        Assert.Null(await AmqpTools.GetAsync(TestBroker.Uri, queue));
    }
}
