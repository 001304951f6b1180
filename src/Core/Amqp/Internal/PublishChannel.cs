using Prewire.Framing.Internal;
using Prewire.Tasks;

namespace Prewire.Amqp.Internal;

/// <summary>
/// One channel of a publisher: its publish sequence (the broker's delivery tags count per channel),
/// its outstanding confirms, and the basic.return whose content header it is waiting for.
/// </summary>
internal sealed class PublishChannel(ushort number)
{
    private (FramedContent, ChannelBodySend)? _direct;

    public ushort Number { get; } = number;

    /// <summary>
    /// Held by one publish from its method frame to its last body frame: AMQP lets frames of different
    /// channels interleave on a connection, never two contents on one channel.
    /// </summary>
    public AsyncLock Turn { get; } = new();

    public ConfirmTracker Confirms { get; } = new();

    /// <summary>The last sequence number given out; advanced under <see cref="Turn"/>.</summary>
    public ulong LastSequence { get; set; }

    /// <summary>A large publish's frames around its body, and their send; made on the first one, used under <see cref="Turn"/>.</summary>
    public (FramedContent Content, ChannelBodySend Send) Direct => _direct ??= (new FramedContent(), new ChannelBodySend(this));

    /// <summary>
    /// The last publish on the channel went to the pipe and was left for a later writer to flush; set and
    /// read under <see cref="Turn"/>. A direct send must not overtake it.
    /// </summary>
    public bool MaybeUnflushed { get; set; }

    /// <summary>Set by basic.return; the content header that follows names the publish.</summary>
    public (ushort Code, string Text)? PendingReturn { get; set; }
}
