using System.Buffers;
using System.Buffers.Binary;
using System.Runtime.CompilerServices;
using Prewire.Framing.Internal.Methods;
using Prewire.Amqp;

namespace Prewire.Framing.Internal;

/// <summary>
/// Writes AMQP 0-9-1 frames straight into an <see cref="IBufferWriter{T}"/> (a <c>PipeWriter</c>, say):
/// each method and header is sized first and written in one pass into the writer's own memory, and a
/// message body goes from the caller's memory into the writer's, split at frame-max, without any
/// intermediate array. Nothing here allocates.
/// </summary>
internal static class AmqpFrameWriter
{
    /// <summary>The protocol header a client sends first.</summary>
    public static void WriteProtocolHeader(IBufferWriter<byte> output)
    {
        ArgumentNullException.ThrowIfNull(output);
        AmqpConstants.ProtocolHeader.CopyTo(output.GetSpan(8));
        output.Advance(8);
    }

    /// <summary>A method frame.</summary>
    public static void WriteMethod<T>(IBufferWriter<byte> output, ushort channel, in T method)
        where T : struct, IAmqpMethod<T>
    {
        ArgumentNullException.ThrowIfNull(output);
        var frameSize = MethodFrameSize(method);
        WriteMethod(output.GetSpan(frameSize), channel, method, frameSize);
        output.Advance(frameSize);
    }

    private static int MethodFrameSize<T>(in T method)
        where T : struct, IAmqpMethod<T> => AmqpConstants.FrameOverhead + 4 + method.GetArgumentsSize();

    private static void WriteMethod<T>(Span<byte> span, ushort channel, in T method, int frameSize)
        where T : struct, IAmqpMethod<T>
    {
        var payload = frameSize - AmqpConstants.FrameOverhead;
        WriteFrameHeader(span, FrameType.Method, channel, (uint)payload);
        BinaryPrimitives.WriteUInt16BigEndian(span[7..], T.ClassId);
        BinaryPrimitives.WriteUInt16BigEndian(span[9..], T.MethodId);
        var writer = new AmqpWriter(span.Slice(11, payload - 4));
        method.WriteArguments(ref writer);
        span[AmqpConstants.FrameHeaderSize + payload] = AmqpConstants.FrameEnd;
    }

    /// <summary>A content header frame for class <c>basic</c>.</summary>
    public static void WriteContentHeader(IBufferWriter<byte> output, ushort channel, ulong bodySize, BasicProperties? properties)
    {
        ArgumentNullException.ThrowIfNull(output);
        var frameSize = ContentHeaderFrameSize(properties is null ? 2 : PropertyCodec.GetSize(properties));
        WriteContentHeader(output.GetSpan(frameSize), channel, bodySize, properties, frameSize, null, 0);
        output.Advance(frameSize);
    }

    /// <summary>
    /// basic.publish and its content header, the header sized (its strings checked) before either is
    /// written: a header that cannot be written leaves <paramref name="output"/> untouched, rather than
    /// holding a method frame whose content never follows (which the broker answers by closing the connection).
    /// </summary>
    internal static void WritePublishHead(IBufferWriter<byte> output, ushort channel, in BasicPublish method, ulong bodySize, BasicProperties? properties, string? extraHeader, long extraValue)
    {
        ArgumentNullException.ThrowIfNull(output);
        var (methodSize, headerSize) = PublishHeadSizes(method, ref properties, extraHeader);
        var span = output.GetSpan(methodSize + headerSize);
        WritePublishHead(span, channel, method, bodySize, properties, extraHeader, extraValue, methodSize, headerSize);
        output.Advance(methodSize + headerSize);
    }

    /// <summary>
    /// A whole publish whose body fits one frame, in one piece of <paramref name="output"/>'s memory: the
    /// method, the content header and the body frame sized first and committed with one Advance (a
    /// PipeWriter takes its lock on each: five a publish, ~800 instructions, when written frame by frame).
    /// A larger body goes frame by frame. Nothing is written when the header cannot be.
    /// </summary>
    internal static void WritePublish(IBufferWriter<byte> output, ushort channel, in BasicPublish method, BasicProperties? properties, string? extraHeader, long extraValue, in ReadOnlySequence<byte> body, uint frameMax)
    {
        ArgumentNullException.ThrowIfNull(output);
        if (body.Length > MaxPayload(frameMax))
        {
            WritePublishHead(output, channel, method, (ulong)body.Length, properties, extraHeader, extraValue);
            WriteContentBody(output, channel, body, frameMax);
            return;
        }
        var (methodSize, headerSize) = PublishHeadSizes(method, ref properties, extraHeader);
        var bodyFrameSize = body.IsEmpty ? 0 : AmqpConstants.FrameOverhead + (int)body.Length;
        var total = methodSize + headerSize + bodyFrameSize;
        var span = output.GetSpan(total);
        WritePublishHead(span, channel, method, (ulong)body.Length, properties, extraHeader, extraValue, methodSize, headerSize);
        if (bodyFrameSize > 0)
        {
            var frame = span.Slice(methodSize + headerSize, bodyFrameSize);
            WriteFrameHeader(frame, FrameType.ContentBody, channel, (uint)body.Length);
            body.CopyTo(frame[AmqpConstants.FrameHeaderSize..]);
            frame[^1] = AmqpConstants.FrameEnd;
        }
        output.Advance(total);
    }

    private static (int Method, int Header) PublishHeadSizes(in BasicPublish method, ref BasicProperties? properties, string? extraHeader)
    {
        properties ??= extraHeader is null ? null : _emptyProperties;
        var header = ContentHeaderFrameSize(properties is null ? 2 : PropertyCodec.GetSize(properties, extraHeader));
        return (MethodFrameSize(method), header);
    }

    private static void WritePublishHead(Span<byte> span, ushort channel, in BasicPublish method, ulong bodySize, BasicProperties? properties, string? extraHeader, long extraValue, int methodSize, int headerSize)
    {
        WriteMethod(span, channel, method, methodSize);
        WriteContentHeader(span.Slice(methodSize, headerSize), channel, bodySize, properties, headerSize, extraHeader, extraValue);
    }

    private static int ContentHeaderFrameSize(int propertiesSize) => AmqpConstants.FrameOverhead + 12 + propertiesSize;

    private static void WriteContentHeader(Span<byte> span, ushort channel, ulong bodySize, BasicProperties? properties, int frameSize, string? extraHeader, long extraValue)
    {
        var payload = frameSize - AmqpConstants.FrameOverhead;
        WriteFrameHeader(span, FrameType.ContentHeader, channel, (uint)payload);
        BinaryPrimitives.WriteUInt16BigEndian(span[7..], BasicPublish.ClassId);
        BinaryPrimitives.WriteUInt16BigEndian(span[9..], 0);
        BinaryPrimitives.WriteUInt64BigEndian(span[11..], bodySize);
        var writer = new AmqpWriter(span.Slice(19, payload - 12));
        if (properties is null) writer.WriteShort(0);
        else PropertyCodec.Write(ref writer, properties, extraHeader, extraValue);
        span[AmqpConstants.FrameHeaderSize + payload] = AmqpConstants.FrameEnd;
    }

    // Both overloads stay out of line: inlined into the publisher's state machine they made its tier-1
    // (PGO) compile big enough to grow the process's native heap by ~2.7 MB (publish benchmark, scenario B).
    // One call per publish is nothing next to the body it writes.

    /// <summary>Body frames for <paramref name="body"/>, each at most <paramref name="frameMax"/> bytes (0: no limit). An empty body writes no frame.</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void WriteContentBody(IBufferWriter<byte> output, ushort channel, ReadOnlySpan<byte> body, uint frameMax)
    {
        ArgumentNullException.ThrowIfNull(output);
        var maxPayload = MaxPayload(frameMax);
        while (!body.IsEmpty)
        {
            var chunk = body[..(int)Math.Min((uint)body.Length, maxPayload)];
            WriteFrameHeader(output.GetSpan(AmqpConstants.FrameHeaderSize), FrameType.ContentBody, channel, (uint)chunk.Length);
            output.Advance(AmqpConstants.FrameHeaderSize);
            output.Write(chunk);
            WriteFrameEnd(output);
            body = body[chunk.Length..];
        }
    }

    /// <summary>Body frames for a multi-segment body; frames may span segments and segments may span frames.</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void WriteContentBody(IBufferWriter<byte> output, ushort channel, in ReadOnlySequence<byte> body, uint frameMax)
    {
        ArgumentNullException.ThrowIfNull(output);
        if (body.IsSingleSegment)
        {
            WriteContentBody(output, channel, body.FirstSpan, frameMax);
            return;
        }
        var maxPayload = MaxPayload(frameMax);
        var remaining = body;
        while (!remaining.IsEmpty)
        {
            var chunk = remaining.Slice(0, Math.Min(remaining.Length, maxPayload));
            WriteFrameHeader(output.GetSpan(AmqpConstants.FrameHeaderSize), FrameType.ContentBody, channel, (uint)chunk.Length);
            output.Advance(AmqpConstants.FrameHeaderSize);
            foreach (var segment in chunk) output.Write(segment.Span);
            WriteFrameEnd(output);
            remaining = remaining.Slice(chunk.End);
        }
    }

    // Read-only by convention: only ever used to write an empty property list plus an extra header.
    private static readonly BasicProperties _emptyProperties = new();

    /// <summary>A whole publish: basic.publish, the content header and the body frames. A header that cannot be written (a short string over 255 bytes) throws before anything is written.</summary>
    public static void WritePublish(IBufferWriter<byte> output, ushort channel, in BasicPublish method, BasicProperties? properties, ReadOnlySpan<byte> body, uint frameMax)
    {
        WritePublishHead(output, channel, method, (ulong)body.Length, properties, null, 0);
        WriteContentBody(output, channel, body, frameMax);
    }

    /// <summary>A whole publish with a multi-segment body.</summary>
    public static void WritePublish(IBufferWriter<byte> output, ushort channel, in BasicPublish method, BasicProperties? properties, in ReadOnlySequence<byte> body, uint frameMax) =>
        WritePublish(output, channel, method, properties, null, 0, body, frameMax);

    /// <summary>A heartbeat frame.</summary>
    public static void WriteHeartbeat(IBufferWriter<byte> output)
    {
        ArgumentNullException.ThrowIfNull(output);
        var span = output.GetSpan(AmqpConstants.FrameOverhead);
        WriteFrameHeader(span, FrameType.Heartbeat, 0, 0);
        span[7] = AmqpConstants.FrameEnd;
        output.Advance(AmqpConstants.FrameOverhead);
    }

    internal static uint MaxPayload(uint frameMax)
    {
        if (frameMax == 0) return int.MaxValue;
        if (frameMax < AmqpConstants.MinFrameMax) throw new ArgumentOutOfRangeException(nameof(frameMax), frameMax, $"frame-max is at least {AmqpConstants.MinFrameMax} (or 0 for no limit)");
        return frameMax - AmqpConstants.FrameOverhead;
    }

    internal static void WriteFrameHeader(Span<byte> span, FrameType type, ushort channel, uint payloadSize)
    {
        span[0] = (byte)type;
        BinaryPrimitives.WriteUInt16BigEndian(span[1..], channel);
        BinaryPrimitives.WriteUInt32BigEndian(span[3..], payloadSize);
    }

    private static void WriteFrameEnd(IBufferWriter<byte> output)
    {
        output.GetSpan(1)[0] = AmqpConstants.FrameEnd;
        output.Advance(1);
    }
}
