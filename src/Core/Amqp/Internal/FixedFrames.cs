using System.IO.Pipelines;
using Prewire.Framing.Internal;

namespace Prewire.Amqp.Internal;

/// <summary>Frames that are always the same (a heartbeat, the protocol header), one instance each.</summary>
internal sealed class FixedFrames(Action<PipeWriter> write) : IFrameSource
{
    public static FixedFrames Heartbeat { get; } = new(AmqpFrameWriter.WriteHeartbeat);

    public static FixedFrames ProtocolHeader { get; } = new(AmqpFrameWriter.WriteProtocolHeader);

    public void WriteFrames(PipeWriter output) => write(output);
}
