using Prewire.Framing.Internal;
using Prewire.Framing.Internal.Methods;

namespace Prewire.Amqp.Internal;

/// <summary>The channel the connection's topology calls take turns on: nothing comes on it but their replies.</summary>
internal sealed class TopologyChannel : AmqpChannel
{
    public override void OnFrame(in Frame frame, AmqpCommandId method)
    {
    }

    // The call waiting on the channel fails with the reason; the next call opens another channel.
    protected override void OnClosed(Exception reason)
    {
    }
}
