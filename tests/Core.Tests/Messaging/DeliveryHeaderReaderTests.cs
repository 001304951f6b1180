using System.Buffers;
using Prewire.Amqp;
using Prewire.Framing.Internal;
using Prewire.Messaging.Internal;

namespace Prewire.Messaging;

/// <summary>The receiver's short read of a delivery's message id and string headers, against the full read.</summary>
public sealed class DeliveryHeaderReaderTests
{
    private static byte[] Encode(BasicProperties properties)
    {
        var bytes = new byte[PropertyCodec.GetSize(properties)];
        var writer = new AmqpWriter(bytes);
        PropertyCodec.Write(ref writer, properties);
        return bytes;
    }

    [Fact]
    public void String_headers_and_the_message_id_read_as_the_full_read_reads_them_with_repeated_values_as_the_same_strings()
    {
        var reader = new DeliveryHeaderReader();
        var headers = new ReceivedHeaders();
        string? lastType = null;
        for (var i = 0; i < 3; i++)
        {
            var properties = new BasicProperties
            {
                ContentType = "text/plain",
                ContentEncoding = "utf-8",
                DeliveryMode = 2,
                Priority = 4,
                CorrelationId = "c",
                ReplyTo = "r",
                Expiration = "60000",
                MessageId = $"id-{i}",
                Timestamp = new AmqpTimestamp(1),
                Headers = new() { [MessageHeaders.MessageId] = $"id-{i}", [MessageHeaders.MessageType] = "order", [MessageHeaders.SentAt] = $"t{i}", ["none"] = null },
            };
            var bytes = new byte[PropertyCodec.GetSize(properties, AmqpPublisher.SequenceHeader)];
            var writer = new AmqpWriter(bytes);
            // As our publisher writes a mandatory publish: its sequence tag after the headers.
            PropertyCodec.Write(ref writer, properties, AmqpPublisher.SequenceHeader, 1000 + i);
            Assert.True(reader.TryRead(bytes, headers, out var messageId, out _));

            var full = new AmqpReader(new ReadOnlySequence<byte>(bytes));
            var expected = PropertyCodec.Read(ref full);
            Assert.Equal(expected.MessageId, messageId);
            Assert.Equal(FieldTables.ToHeaders(expected.Headers).OrderBy(h => h.Key), headers.OrderBy(h => h.Key));
            // The id header is the message id's string (a text id); a type the last delivery had is its string again.
            Assert.Same(messageId, headers[MessageHeaders.MessageId]);
            if (lastType is not null) Assert.Same(lastType, headers[MessageHeaders.MessageType]);
            lastType = headers[MessageHeaders.MessageType];
        }
    }

    [Fact]
    public void Integer_headers_of_every_width_read_as_the_full_read_renders_them_and_their_text_is_made_only_when_asked()
    {
        var reader = new DeliveryHeaderReader();
        var headers = new ReceivedHeaders();
        var bytes = Encode(new BasicProperties
        {
            MessageId = "m",
            Headers = new()
            {
                ["b"] = (sbyte)-5,
                ["B"] = (byte)250,
                ["s"] = (short)-30_000,
                ["u"] = (ushort)60_000,
                ["I"] = int.MinValue,
                ["i"] = uint.MaxValue,
                // As RabbitMQ.Client tags each publish, and a quorum queue counts deliveries.
                ["x-dotnet-pub-seq-no"] = 123_456_789_012L,
                ["x-delivery-count"] = 0L,
                ["text"] = "t",
            },
        });
        // Warm: the keys are met.
        Assert.True(reader.TryRead(bytes, headers, out _, out _));
        var before = GC.GetAllocatedBytesForCurrentThread();
        Assert.True(reader.TryRead(bytes, headers, out _, out _));
        // The message id's string (1 char: 24 B) alone: no integer's text until asked.
        Assert.Equal(24, GC.GetAllocatedBytesForCurrentThread() - before);

        var full = new AmqpReader(new ReadOnlySequence<byte>(bytes));
        Assert.Equal(FieldTables.ToHeaders(PropertyCodec.Read(ref full).Headers).OrderBy(h => h.Key), headers.OrderBy(h => h.Key));
        Assert.Equal(("-5", "4294967295", "123456789012"), (headers["b"], headers["i"], headers["x-dotnet-pub-seq-no"]));
        // Its bytes are not text: the time-sent fast path must not read them as such.
        Assert.False(headers.TryGetUtf8("x-delivery-count", out _));
    }

    [Fact]
    public void A_header_that_is_neither_a_string_nor_an_integer_or_malformed_properties_leave_it_to_the_full_read()
    {
        var reader = new DeliveryHeaderReader();
        var headers = new ReceivedHeaders();
        Assert.False(reader.TryRead(Encode(new BasicProperties { Headers = new() { ["n"] = 4.2 } }), headers, out _, out _));
        Assert.False(reader.TryRead(Encode(new BasicProperties { Headers = new() { ["n"] = true } }), headers, out _, out _));
        var truncated = Encode(new BasicProperties { Headers = new() { ["n"] = 42L } });
        Assert.False(reader.TryRead(truncated.AsMemory(0, truncated.Length - 3), headers, out _, out _));
        var bytes = Encode(new BasicProperties { MessageId = "abc", Headers = new() { ["k"] = "v" } });
        Assert.False(reader.TryRead(bytes.AsMemory(0, bytes.Length - 2), headers, out _, out _));
        Assert.True(reader.TryRead(Encode(new BasicProperties()), headers, out var none, out _));
        Assert.Equal(("", 0), (none, headers.Count));
    }

    [Fact]
    public void A_delivery_from_our_publisher_costs_nothing_its_hex_message_id_read_as_a_value_and_its_time_sent_from_the_bytes()
    {
        var reader = new DeliveryHeaderReader();
        var headers = new ReceivedHeaders();
        var sent = new DateTimeOffset(2026, 11, 26, 1, 2, 3, TimeSpan.Zero).AddTicks(4_567_891);
        byte[] Delivery(int i) => Encode(new BasicProperties
        {
            MessageId = $"{i:x32}",
            Headers = new()
            {
                [MessageHeaders.MessageId] = $"{i:x32}",
                [MessageHeaders.ContentType] = "text/plain",
                [MessageHeaders.SentAt] = sent.AddMilliseconds(i).ToString("O", System.Globalization.CultureInfo.InvariantCulture),
            },
        });
        var (first, second) = (Delivery(1), Delivery(2));
        // Warm: the keys are met and the content type's string made once.
        Assert.True(reader.TryRead(first, headers, out _, out _));
        Assert.Equal("text/plain", headers[MessageHeaders.ContentType]);

        var before = GC.GetAllocatedBytesForCurrentThread();
        Assert.True(reader.TryRead(second, headers, out var messageId, out var hexId));
        Assert.True(headers.TryGetValue(MessageHeaders.ContentType, out var type));
        Assert.True(MessageHeaders.TryGetSentAt(headers, out var sentAt));
        var afterAsking = GC.GetAllocatedBytesForCurrentThread();

        // No string for the id (32 hex digits: a value), a repeated value or a parsed time.
        Assert.Equal(0, afterAsking - before);
        Assert.Equal((null, new Guid($"{2:x32}")), (messageId, hexId));
        Assert.Equal(("text/plain", sent.AddMilliseconds(2), $"{2:x32}"), (type, sentAt, headers[MessageHeaders.MessageId]));
        // Asked for as a string, the time is the text sent, and costs that string only (33 chars: 88 B), no copy of its bytes.
        before = GC.GetAllocatedBytesForCurrentThread();
        var text = headers[MessageHeaders.SentAt];
        Assert.Equal(88, GC.GetAllocatedBytesForCurrentThread() - before);
        Assert.Equal(sent.AddMilliseconds(2).ToString("O", System.Globalization.CultureInfo.InvariantCulture), text);
    }

    [Fact]
    public void A_time_sent_in_another_form_or_in_a_plain_dictionary_reads_as_DateTimeOffset_parses_it()
    {
        var reader = new DeliveryHeaderReader();
        var headers = new ReceivedHeaders();
        Assert.True(reader.TryRead(Encode(new BasicProperties { Headers = new() { [MessageHeaders.SentAt] = "2026-11-26T01:02:03Z" } }), headers, out _, out _));
        Assert.True(MessageHeaders.TryGetSentAt(headers, out var fromView));
        Assert.True(MessageHeaders.TryGetSentAt(new Dictionary<string, string> { [MessageHeaders.SentAt] = "2026-11-26T01:02:03Z" }, out var fromDictionary));
        Assert.Equal((new DateTimeOffset(2026, 11, 26, 1, 2, 3, TimeSpan.Zero), fromView), (fromDictionary, fromDictionary));
        Assert.False(MessageHeaders.TryGetSentAt(new Dictionary<string, string> { [MessageHeaders.SentAt] = "yesterday" }, out _));
        Assert.False(MessageHeaders.TryGetSentAt(new Dictionary<string, string>(), out _));
    }

    [Theory]
    [InlineData("0123456789abcdef0123456789abcdef", true)]
    [InlineData("0123456789ABCDEF0123456789ABCDEF", false)]
    [InlineData("0123456789abcdef0123456789abcde", false)]
    [InlineData("0123456789abcdef0123456789abcdef0", false)]
    [InlineData("01234567-89ab-cdef-0123-456789abcdef", false)]
    [InlineData("0123456789abcdeg0123456789abcdef", false)]
    public void Only_32_lowercase_hex_digits_are_read_as_a_value_so_its_text_made_later_is_the_text_sent(string id, bool asValue)
    {
        var reader = new DeliveryHeaderReader();
        Assert.True(reader.TryRead(Encode(new BasicProperties { MessageId = id }), new ReceivedHeaders(), out var text, out var value));
        Assert.Equal(asValue ? (null, id) : (id, Guid.Empty.ToString("N")), (text, value.ToString("N")));
        var context = asValue ? TransportReceiveContext.Rent(value, new ReceivedHeaders(), default, TestContext.Current.CancellationToken) : TransportReceiveContext.Rent(id, new ReceivedHeaders(), default, TestContext.Current.CancellationToken);
        Assert.Equal((id, asValue), (context.MessageId, context.TryGetMessageId(out _)));
        context.Return();
    }
}
