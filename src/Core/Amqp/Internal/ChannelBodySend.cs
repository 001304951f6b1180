using System.Buffers;
using Prewire.Transport.Internal;

namespace Prewire.Amqp.Internal;

/// <summary>
/// A channel's direct send of a publish's frames. With confirms the publish waits for its confirm, not
/// for this: it hands the channel and the body's owner over, and the send gives the channel back and
/// disposes the owner once the body is out, on the send loop, without a hop through the thread pool.
/// </summary>
internal sealed class ChannelBodySend(PublishChannel channel) : DirectSend
{
    private bool _handedOver;
    private IMemoryOwner<byte>? _owner;

    /// <summary>The next send releases the channel and disposes <paramref name="owner"/> when it is over.</summary>
    public void HandOver(IMemoryOwner<byte>? owner)
    {
        _handedOver = true;
        _owner = owner;
    }

    protected override void Sent(Exception? error)
    {
        if (!_handedOver) return;
        var owner = _owner;
        _owner = null;
        _handedOver = false;
        owner?.Dispose();
        // Last: the next publish on the channel may take this object from here on.
        channel.Turn.Release();
    }
}
