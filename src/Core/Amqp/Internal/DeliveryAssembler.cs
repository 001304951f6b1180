using System.Buffers;
using Prewire.Framing.Internal;

namespace Prewire.Amqp.Internal;

/// <summary>
/// Puts a delivery together from its frames as the read loop meets them: basic.deliver, the content
/// header, then body frames up to the header's body size. The body is not copied: each body frame's
/// payload is held where it lies (<see cref="BodySegment"/>) and the pieces are linked into one
/// sequence. Nothing is allocated per delivery once the pools are warm: deliveries come back when
/// their handler is done, each with its pieces for its next body, and the exchange and routing key
/// strings are those of the last delivery when their bytes are the same.
/// </summary>
internal sealed class DeliveryAssembler(Func<AmqpDelivery> rent)
{
    private AmqpDelivery? _current;
    private long _bodySize = -1;
    private long _received;
    private readonly LastString _exchange = new();
    private readonly LastString _routingKey = new();

    /// <summary>
    /// Takes the next frame of the channel; returns the delivery when this frame completed it (its
    /// <see cref="AmqpDelivery.Pieces"/> hold the body: give it to <see cref="Release"/> when its handler is done).
    /// </summary>
    /// <param name="frame">A basic.deliver method frame, a content header, or a body frame.</param>
    /// <exception cref="AmqpProtocolException">A frame out of order, or a body longer than its header said.</exception>
    public AmqpDelivery? Add(in Frame frame)
    {
        switch (frame.Type)
        {
            case FrameType.Method:
                if (_current is not null) throw new AmqpProtocolException($"a method frame came on channel {frame.Channel} before the content of delivery {_current.DeliveryTag} was complete.");
                StartDelivery(frame);
                return null;
            case FrameType.ContentHeader:
                if (_current is null || _bodySize >= 0) throw new AmqpProtocolException($"a content header came on channel {frame.Channel} without a basic.deliver before it.");
                ReadHeader(frame);
                break;
            case FrameType.ContentBody:
                if (_current is null || _bodySize < 0) throw new AmqpProtocolException($"a body frame came on channel {frame.Channel} without a content header before it.");
                if (_received + frame.Payload.Length > _bodySize)
                    throw new AmqpProtocolException($"delivery {_current.DeliveryTag}'s body runs past the {_bodySize} bytes its content header announced.");
                Hold(frame.Payload);
                break;
            default:
                return null;
        }
        if (_received < _bodySize) return null;
        var delivery = _current;
        delivery.Body = Link(delivery.Pieces);
        _current = null;
        _bodySize = -1;
        return delivery;
    }

    /// <summary>Lets go of a delivery's pieces (and their blocks), keeping the objects with it for its next body.</summary>
    /// <remarks>A pool of pieces shared by the channel's deliveries cost two lock turns a message (taken on the read loop, given back by the handler).</remarks>
    public static void Release(AmqpDelivery delivery)
    {
        foreach (var piece in delivery.Pieces)
        {
            piece.Release();
            delivery.SparePieces.Push(piece);
        }
        delivery.Pieces.Clear();
    }

    /// <summary>Drops a delivery half put together (the channel is gone).</summary>
    public void Abandon()
    {
        if (_current is not null) Release(_current);
        _current = null;
        _bodySize = -1;
    }

    /// <summary>basic.deliver, read without a string for the consumer tag (one consumer per channel) and with the last ones' strings for the rest when they match.</summary>
    private void StartDelivery(in Frame frame)
    {
        scoped var reader = new AmqpReader(frame.Payload);
        var id = (Framing.Internal.Methods.AmqpCommandId)reader.ReadLong();
        if (id != Framing.Internal.Methods.AmqpCommandId.BasicDeliver) throw new AmqpProtocolException($"unexpected method ({(uint)id >> 16}, {(uint)id & 0xFFFF}) on a consumer's channel.");
        // The strings' bytes where they lie: a sequence sliced for each cost ~125 instructions (callgrind).
        Span<byte> scratch = stackalloc byte[byte.MaxValue];
        reader.ReadShortStringBytes(scratch);
        var tag = reader.ReadLongLong();
        var redelivered = (reader.ReadOctet() & 1) != 0;
        var exchange = _exchange.Get(reader.ReadShortStringBytes(scratch));
        var routingKey = _routingKey.Get(reader.ReadShortStringBytes(scratch));
        reader.EnsureConsumed("basic.deliver");
        _current = rent();
        _current.Start(tag, redelivered, exchange, routingKey);
        _received = 0;
    }

    private void ReadHeader(in Frame frame)
    {
        var reader = new AmqpReader(frame.Payload);
        if (reader.ReadShort() != Framing.Internal.Methods.AmqpClassId.Basic) throw new AmqpProtocolException("a delivery's content header is not of class basic.");
        if (reader.ReadShort() != 0) throw new AmqpProtocolException("a content header's weight must be 0.");
        var size = reader.ReadLongLong();
        if (size > long.MaxValue) throw new AmqpProtocolException($"a body of {size} bytes.");
        _bodySize = (long)size;
        _current!.SetProperties(frame.Payload.Slice(12));
    }

    private void Hold(in ReadOnlySequence<byte> payload)
    {
        foreach (var piece in payload)
        {
            if (piece.IsEmpty) continue;
            if (!_current!.SparePieces.TryPop(out var segment)) segment = new BodySegment();
            segment.Hold(piece, _received);
            _current.Pieces.Add(segment);
            _received += piece.Length;
        }
    }

    private static ReadOnlySequence<byte> Link(List<BodySegment> pieces)
    {
        if (pieces.Count == 0) return ReadOnlySequence<byte>.Empty;
        if (pieces.Count == 1) return new ReadOnlySequence<byte>(pieces[0].Memory);
        for (var i = 1; i < pieces.Count; i++) pieces[i - 1].Link(pieces[i]);
        var last = pieces[^1];
        return new ReadOnlySequence<byte>(pieces[0], 0, last, last.Memory.Length);
    }
}
