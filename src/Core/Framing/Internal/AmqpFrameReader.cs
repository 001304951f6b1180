using System.Buffers;
using System.Buffers.Binary;
using Prewire.Framing.Internal.Methods;

namespace Prewire.Framing.Internal;

/// <summary>
/// Reads AMQP 0-9-1 frames from a <see cref="ReadOnlySequence{T}"/> as a <c>PipeReader</c> hands it
/// over. <see cref="TryReadFrame"/> returns <see langword="false"/> when more data is needed and throws
/// <see cref="AmqpProtocolException"/> when the data can never become a valid frame; frame payloads
/// are slices of the input, never copies.
/// </summary>
internal static class AmqpFrameReader
{
    /// <summary>
    /// Reads one frame from the start of <paramref name="buffer"/> and advances past it.
    /// </summary>
    /// <param name="buffer">The data received so far.</param>
    /// <param name="frameMax">The negotiated frame-max (0: none); before tuning, <see cref="AmqpConstants.MinFrameMax"/>.</param>
    /// <param name="frame">The frame, when this returns <see langword="true"/>.</param>
    /// <returns><see langword="false"/> when <paramref name="buffer"/> does not hold a whole frame yet.</returns>
    public static bool TryReadFrame(ref ReadOnlySequence<byte> buffer, uint frameMax, out Frame frame)
    {
        frame = default;
        // From the first segment's span where the header lies in it (nearly always): through a
        // SequenceReader the Consumer's message took 15,427 instructions, this way 14,805
        // (benchmarks/client-instructions.sh).
        var first = buffer.FirstSpan;
        byte typeOctet;
        ushort channel;
        uint size;
        if (first.Length >= AmqpConstants.FrameHeaderSize)
            (typeOctet, channel, size) = (first[0], BinaryPrimitives.ReadUInt16BigEndian(first[1..]), BinaryPrimitives.ReadUInt32BigEndian(first[3..]));
        else if (!TryReadSplitHeader(buffer, out typeOctet, out channel, out size))
            return false;

        var type = (FrameType)typeOctet;
        if (type is not (FrameType.Method or FrameType.ContentHeader or FrameType.ContentBody or FrameType.Heartbeat))
        {
            throw new AmqpProtocolException(typeOctet == (byte)'A'
                ? "the peer sent a protocol header instead of a frame: it does not speak AMQP 0-9-1."
                : $"unknown frame type {typeOctet}.");
        }
        if (frameMax != 0 && size > frameMax - AmqpConstants.FrameOverhead)
            throw new AmqpProtocolException($"a {type} frame of {size} bytes exceeds frame-max {frameMax}.");
        if (type == FrameType.Heartbeat && (channel != 0 || size != 0))
            throw new AmqpProtocolException($"a heartbeat frame must be empty on channel 0; got {size} bytes on channel {channel}.");
        var length = AmqpConstants.FrameOverhead + (long)size;
        if (buffer.Length < length) return false;

        var end = length <= first.Length ? first[(int)length - 1] : buffer.Slice(length - 1, 1).FirstSpan[0];
        if (end != AmqpConstants.FrameEnd)
            throw new AmqpProtocolException($"a {type} frame on channel {channel} ends with 0x{end:X2}, not the frame-end octet 0xCE.");

        frame = new Frame(type, channel, buffer.Slice(AmqpConstants.FrameHeaderSize, size));
        buffer = buffer.Slice(length);
        return true;
    }

    // A header split across segments (a read that ended inside it).
    private static bool TryReadSplitHeader(in ReadOnlySequence<byte> buffer, out byte type, out ushort channel, out uint size)
    {
        var reader = new SequenceReader<byte>(buffer);
        var read = reader.TryRead(out type) & reader.TryReadBigEndian(out short channelValue) & reader.TryReadBigEndian(out int sizeValue);
        (channel, size) = ((ushort)channelValue, (uint)sizeValue);
        return read;
    }

    /// <summary>The class and method ids of a method frame, as one value to switch on.</summary>
    public static AmqpCommandId ReadCommandId(in Frame frame)
    {
        if (frame.Type != FrameType.Method) throw new AmqpProtocolException($"expected a method frame, got a {frame.Type} frame.");
        // From the first segment's span where the ids lie in it (nearly always): a reader over the
        // sequence cost ~220 instructions a call, and a consumer's delivery takes two (callgrind).
        var first = frame.Payload.FirstSpan;
        if (first.Length >= 4) return (AmqpCommandId)BinaryPrimitives.ReadUInt32BigEndian(first);
        var reader = new AmqpReader(frame.Payload);
        return (AmqpCommandId)reader.ReadLong();
    }

    /// <summary>Reads a method frame as <typeparamref name="T"/>; throws when it is another method or malformed.</summary>
    public static T ReadMethod<T>(in Frame frame)
        where T : struct, IAmqpMethod<T>
    {
        var id = ReadCommandId(frame);
        if (id != T.CommandId)
            throw new AmqpProtocolException($"expected {typeof(T).Name} ({T.ClassId}, {T.MethodId}), got method ({(uint)id >> 16}, {(uint)id & 0xFFFF}).");
        var reader = new AmqpReader(frame.Payload.Slice(4));
        var method = T.ReadArguments(ref reader);
        // The name only on failure: under NativeAOT, Type.Name builds a new string on every call.
        if (reader.Remaining != 0) reader.EnsureConsumed(typeof(T).Name);
        return method;
    }

    /// <summary>Reads a content header frame.</summary>
    public static ContentHeader ReadContentHeader(in Frame frame)
    {
        if (frame.Type != FrameType.ContentHeader) throw new AmqpProtocolException($"expected a content header frame, got a {frame.Type} frame.");
        var reader = new AmqpReader(frame.Payload);
        var classId = reader.ReadShort();
        if (reader.ReadShort() != 0) throw new AmqpProtocolException("a content header's weight must be 0.");
        var bodySize = reader.ReadLongLong();
        var properties = PropertyCodec.Read(ref reader);
        reader.EnsureConsumed("the content header");
        return new ContentHeader(classId, bodySize, properties);
    }
}
