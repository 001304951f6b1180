using System.IO.Pipelines;
using Prewire.Framing.Internal;

namespace Prewire.Amqp.Internal;

/// <summary>
/// One method frame on one channel, or on each of several (a channel.open per channel in one flush),
/// for the control path: made per call, which publishes and acks never take.
/// </summary>
internal sealed class MethodFrames<T>(T method, ushort channel = 0, IReadOnlyList<AmqpChannel>? channels = null, AmqpConnection? mustBeOpen = null) : IFrameSource
    where T : struct, IAmqpMethod<T>
{
    public void WriteFrames(PipeWriter output)
    {
        mustBeOpen?.ThrowIfFailed();
        if (channels is null)
        {
            AmqpFrameWriter.WriteMethod(output, channel, method);
            return;
        }
        foreach (var each in channels) AmqpFrameWriter.WriteMethod(output, each.Number, method);
    }
}
