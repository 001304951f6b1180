namespace Prewire.Framing.Internal;

/// <summary>AMQP 0-9-1 frame types.</summary>
internal enum FrameType : byte
{
    /// <summary>A method: class id, method id, arguments.</summary>
    Method = 1,

    /// <summary>A content header: class id, body size, properties.</summary>
    ContentHeader = 2,

    /// <summary>A piece of content body.</summary>
    ContentBody = 3,

    /// <summary>A heartbeat, on channel 0, empty.</summary>
    Heartbeat = 8,
}
