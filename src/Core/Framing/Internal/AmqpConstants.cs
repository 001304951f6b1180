namespace Prewire.Framing.Internal;

/// <summary>Numbers fixed by the AMQP 0-9-1 specification.</summary>
internal static class AmqpConstants
{
    /// <summary>Type, channel, size.</summary>
    public const int FrameHeaderSize = 7;

    /// <summary>Header plus the frame-end octet: what a frame adds around its payload.</summary>
    public const int FrameOverhead = FrameHeaderSize + 1;

    /// <summary>The octet that ends every frame.</summary>
    public const byte FrameEnd = 0xCE;

    /// <summary>The smallest frame-max a peer may negotiate.</summary>
    public const uint MinFrameMax = 4096;

    /// <summary>"AMQP" 0 0 9 1: what a client sends first.</summary>
    public static ReadOnlySpan<byte> ProtocolHeader => "AMQP\0\0\u0009\u0001"u8;
}
