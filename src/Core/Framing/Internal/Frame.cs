namespace Prewire.Framing.Internal;

/// <summary>
/// One frame as read: its type, channel and payload. The payload is a slice of the buffer the
/// reader was given, not a copy: it is valid until that buffer is advanced past it.
/// </summary>
internal readonly record struct Frame(FrameType Type, ushort Channel, System.Buffers.ReadOnlySequence<byte> Payload);
