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
        var bytes = new byte[properties.GetSize()];
        var writer = new AmqpWriter(bytes);
        properties.Write(ref writer);
        return bytes;
    }

    [Fact]
    public void String_headers_and_the_message_id_read_as_the_full_read_reads_them_with_repeated_values_as_the_same_strings()
    {
        var reader = new DeliveryHeaderReader();
        var headers = new Dictionary<string, string>();
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
            var bytes = new byte[properties.GetSize(Amqp.Internal.PublishChannel.SequenceHeader)];
            var writer = new AmqpWriter(bytes);
            // As our publisher writes a mandatory publish: its sequence tag after the headers.
            properties.Write(ref writer, Amqp.Internal.PublishChannel.SequenceHeader, 1000 + i);
            Assert.True(reader.TryRead(bytes, headers, out var messageId));

            var full = new AmqpReader(new ReadOnlySequence<byte>(bytes));
            var expected = BasicProperties.Read(ref full);
            Assert.Equal(expected.MessageId, messageId);
            Assert.Equal(FieldTables.ToHeaders(expected.Headers).OrderBy(h => h.Key), headers.OrderBy(h => h.Key));
            // The id header is the message id's string; a type the last delivery had is its string again.
            Assert.Same(messageId, headers[MessageHeaders.MessageId]);
            if (lastType is not null) Assert.Same(lastType, headers[MessageHeaders.MessageType]);
            lastType = headers[MessageHeaders.MessageType];
        }
    }

    [Fact]
    public void A_header_that_is_not_a_string_or_malformed_properties_leave_it_to_the_full_read()
    {
        var reader = new DeliveryHeaderReader();
        var headers = new Dictionary<string, string>();
        Assert.False(reader.TryRead(Encode(new BasicProperties { Headers = new() { ["n"] = 42 } }), headers, out _));
        var bytes = Encode(new BasicProperties { MessageId = "abc", Headers = new() { ["k"] = "v" } });
        Assert.False(reader.TryRead(bytes.AsSpan(0, bytes.Length - 2), headers, out _));
        Assert.True(reader.TryRead(Encode(new BasicProperties()), headers, out var none));
        Assert.Equal(("", 0), (none, headers.Count));
    }
}
