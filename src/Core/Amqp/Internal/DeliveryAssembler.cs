using System.Buffers;
using Prewire.Framing.Internal;

namespace Prewire.Amqp.Internal;

/// <summary>
/// Puts a delivery together from its frames as the read loop meets them: basic.deliver, the content
/// header, then body frames up to the header's body size. The body is not copied: each body frame's
/// payload is held where it lies (<see cref="BodySegment"/>) and the pieces are linked into one
/// sequence. Nothing is allocated per delivery once the pools are warm: deliveries and pieces come
/// back when their handler is done, and the exchange and routing key strings are those of the last
/// delivery when their bytes are the same.
/// </summary>
internal sealed class DeliveryAssembler(Func<AmqpDelivery> rent)
{
    private readonly Stack<BodySegment> _freeSegments = new();
    private AmqpDelivery? _current;
    private List<BodySegment>? _pieces;
    private long _bodySize = -1;
    private long _received;
    private readonly LastString _exchange = new();
    private readonly LastString _routingKey = new();

    /// <summary>
    /// Takes the next frame of the channel; returns the delivery when this frame completed it (its
    /// <see cref="AmqpDelivery.Pieces"/> hold the body: give them to <see cref="Release"/> when its handler is done).
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
        delivery.Body = Link(_pieces!);
        _current = null;
        _pieces = null;
        _bodySize = -1;
        return delivery;
    }

    /// <summary>Lets go of a delivery's pieces (and their blocks), keeping the objects for later deliveries.</summary>
    public void Release(List<BodySegment> pieces)
    {
        lock (_freeSegments)
        {
            foreach (var piece in pieces)
            {
                piece.Release();
                _freeSegments.Push(piece);
            }
        }
        pieces.Clear();
    }

    /// <summary>Drops a delivery half put together (the channel is gone).</summary>
    public void Abandon()
    {
        if (_pieces is not null) Release(_pieces);
        _current = null;
        _pieces = null;
        _bodySize = -1;
    }

    /// <summary>basic.deliver, read without a string for the consumer tag (one consumer per channel) and with the last ones' strings for the rest when they match.</summary>
    private void StartDelivery(in Frame frame)
    {
        var reader = new AmqpReader(frame.Payload);
        var id = (Framing.Internal.Methods.AmqpCommandId)reader.ReadLong();
        if (id != Framing.Internal.Methods.AmqpCommandId.BasicDeliver) throw new AmqpProtocolException($"unexpected method ({(uint)id >> 16}, {(uint)id & 0xFFFF}) on a consumer's channel.");
        reader.ReadBytes(reader.ReadOctet());
        var tag = reader.ReadLongLong();
        var redelivered = (reader.ReadOctet() & 1) != 0;
        var exchange = _exchange.Get(reader.ReadBytes(reader.ReadOctet()));
        var routingKey = _routingKey.Get(reader.ReadBytes(reader.ReadOctet()));
        reader.EnsureConsumed("basic.deliver");
        _current = rent();
        _current.Start(tag, redelivered, exchange, routingKey);
        _pieces = _current.Pieces;
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
            BodySegment? segment;
            lock (_freeSegments) _freeSegments.TryPop(out segment);
            segment ??= new BodySegment();
            segment.Hold(piece, _received);
            _pieces!.Add(segment);
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
