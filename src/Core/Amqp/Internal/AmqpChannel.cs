using Prewire.Framing.Internal;
using Prewire.Framing.Internal.Methods;

namespace Prewire.Amqp.Internal;

/// <summary>
/// One channel of an <see cref="AmqpConnection"/>, as its user (a publisher, a consumer, the
/// topology calls) sees it: the read loop hands it the frames of its number in order, answers a
/// synchronous method's reply to the call waiting for it, and tells it when the channel or the
/// connection ends.
/// </summary>
internal abstract class AmqpChannel
{
    private PendingReply? _reply;
    private Exception? _failure;

    /// <summary>The channel's number, 1 to channel-max; 0 until the connection opened it.</summary>
    public ushort Number { get; internal set; }

    /// <summary>Why the channel ended, once it has.</summary>
    public Exception? Failure => Volatile.Read(ref _failure);

    /// <summary>A frame for this channel that is not the reply a call waits for. Runs on the read loop: must not block.</summary>
    /// <param name="frame">The frame.</param>
    /// <param name="method">A method frame's ids, read once by the connection; <see langword="default"/> for other frames.</param>
    public abstract void OnFrame(in Frame frame, AmqpCommandId method);

    /// <summary>The broker closed the channel, or the connection ended. Runs once; on the read loop or the closing thread.</summary>
    protected abstract void OnClosed(Exception reason);

    internal void Expect(PendingReply reply)
    {
        if (Interlocked.CompareExchange(ref _reply, reply, null) is not null)
            throw new InvalidOperationException($"channel {Number} already waits for a reply: AMQP allows one synchronous method at a time per channel");
    }

    /// <summary>Hands <paramref name="frame"/> to the call waiting for it; false when it is not that reply.</summary>
    internal bool TryReply(in Frame frame, Framing.Internal.Methods.AmqpCommandId id)
    {
        var reply = Volatile.Read(ref _reply);
        if (reply is null || reply.Expected != id) return false;
        Volatile.Write(ref _reply, null);
        reply.Complete(frame);
        return true;
    }

    internal void Close(Exception reason)
    {
        if (Interlocked.CompareExchange(ref _failure, reason, null) is not null) return;
        Interlocked.Exchange(ref _reply, null)?.Fail(reason);
        OnClosed(reason);
    }
}
