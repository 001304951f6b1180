using System.Buffers;
using Prewire.Amqp.Internal;
using Prewire.Framing.Internal;

namespace Prewire.Amqp;

/// <summary>
/// One message the broker delivered to an <see cref="AmqpConsumer"/> (basic.deliver, its content
/// header and body). <see cref="Body"/> lies where the socket put it, not copied; like the delivery
/// itself it is valid until the handler's task completes, after which the object serves another
/// delivery: copy what must outlive the handler.
/// </summary>
/// <remarks>
/// A handler settles a delivery with <see cref="Ack"/>, <see cref="Nack"/> or <see cref="Reject"/>, or
/// by returning: a handler that returns acknowledges, one that throws rejects without requeue (the
/// queue's dead-letter exchange, if it has one, gets the message). Acknowledgements of consecutive
/// deliveries go out as one <c>basic.ack</c> with <c>multiple</c> set.
/// </remarks>
public sealed class AmqpDelivery
{
    private readonly ConsumerChannel _channel;
    private byte[] _properties = new byte[256];
    private int _propertiesLength;
    private BasicProperties? _parsed;
    private int _settled;

    internal AmqpDelivery(ConsumerChannel channel)
    {
        _channel = channel;
        OnHandled = () => channel.Handled(this);
    }

    /// <summary>The broker's number for the delivery on its channel.</summary>
    public ulong DeliveryTag { get; private set; }

    /// <summary>The broker delivered the message before, to this or another consumer, without an acknowledgement.</summary>
    public bool Redelivered { get; private set; }

    /// <summary>The exchange the message was published to (empty: the default exchange).</summary>
    public string Exchange { get; private set; } = "";

    /// <summary>The routing key it was published with.</summary>
    public string RoutingKey { get; private set; } = "";

    /// <summary>The body, where the socket put it: one piece for a body in one frame, several for a body over several frames.</summary>
    public ReadOnlySequence<byte> Body { get; internal set; }

    /// <summary>
    /// The message's properties and headers, read from the content header on first use (allocating
    /// then, not before: a handler that never asks costs nothing).
    /// </summary>
    /// <exception cref="InvalidDataException">The content header's properties are malformed.</exception>
    public BasicProperties Properties => _parsed ??= ReadProperties();

    /// <summary>Acknowledges the delivery: the broker forgets the message.</summary>
    /// <exception cref="InvalidOperationException">The delivery was settled already.</exception>
    public void Ack() => Settle(SettleKind.Ack);

    /// <summary>Refuses the delivery (basic.nack): requeued, or dead-lettered (or dropped) without <paramref name="requeue"/>.</summary>
    /// <exception cref="InvalidOperationException">The delivery was settled already.</exception>
    public void Nack(bool requeue) => Settle(requeue ? SettleKind.NackRequeue : SettleKind.Nack);

    /// <summary>Refuses the delivery (basic.reject): requeued, or dead-lettered (or dropped) without <paramref name="requeue"/>.</summary>
    /// <exception cref="InvalidOperationException">The delivery was settled already.</exception>
    public void Reject(bool requeue) => Settle(requeue ? SettleKind.RejectRequeue : SettleKind.Reject);

    /// <summary>The content header's property bytes, as received.</summary>
    internal ReadOnlyMemory<byte> PropertyBytes => _properties.AsMemory(0, _propertiesLength);

    /// <summary>A slot for what a receiver keeps per delivery object (its headers view), reused with the object.</summary>
    internal object? ReceiverState { get; set; }

    /// <summary>What holds the body where it lies, until the handler is done.</summary>
    internal List<BodySegment> Pieces { get; } = [];

    /// <summary>Pieces let go of, kept with the object for its next body: whoever owns the delivery uses them, no lock.</summary>
    internal Stack<BodySegment> SparePieces { get; } = new();

    /// <summary>Made once per object: the continuation of an asynchronous handler, allocating nothing per delivery.</summary>
    internal Action OnHandled { get; }

    /// <summary>The handler's task while it runs (a delivery handled asynchronously).</summary>
    internal ValueTask Handling { get; set; }

    internal void Start(ulong deliveryTag, bool redelivered, string exchange, string routingKey)
    {
        DeliveryTag = deliveryTag;
        Redelivered = redelivered;
        Exchange = exchange;
        RoutingKey = routingKey;
        Body = default;
        _parsed = null;
        _propertiesLength = 0;
        Volatile.Write(ref _settled, 0);
    }

    /// <summary>Keeps the content header's property bytes (not the body's: small, and read only on demand).</summary>
    internal void SetProperties(in ReadOnlySequence<byte> properties)
    {
        if (properties.Length > _properties.Length) _properties = new byte[properties.Length];
        properties.CopyTo(_properties);
        _propertiesLength = (int)properties.Length;
    }

    /// <summary>Settles it the way its handler ended, when the handler did not.</summary>
    internal void SettleIfNot(bool failed)
    {
        if (Interlocked.Exchange(ref _settled, 1) == 0) _channel.Settle(DeliveryTag, failed ? SettleKind.Reject : SettleKind.Ack);
    }

    private void Settle(SettleKind kind)
    {
        if (Interlocked.Exchange(ref _settled, 1) != 0) throw new InvalidOperationException($"delivery {DeliveryTag} was settled already");
        _channel.Settle(DeliveryTag, kind);
    }

    private BasicProperties ReadProperties()
    {
        try
        {
            var reader = new AmqpReader(new ReadOnlySequence<byte>(_properties, 0, _propertiesLength));
            var properties = PropertyCodec.Read(ref reader);
            reader.EnsureConsumed("the content header");
            return properties;
        }
        catch (AmqpProtocolException e)
        {
            throw new InvalidDataException($"delivery {DeliveryTag}'s properties are malformed: {e.Message}", e);
        }
    }
}
