using Prewire.Amqp.Internal;
using Prewire.Framing.Internal;
using Prewire.Framing.Internal.Methods;

namespace Prewire.Amqp;

public sealed partial class AmqpConnection
{
    // The read loop's thread while it hands a read's frames out (0 otherwise), and what it writes after.
    private int _handingOut;
    private readonly List<Settlements> _afterRead = [];

    /// <summary>Reads what the broker sends after the handshake and hands each frame to its channel.</summary>
    private async Task ReadLoopAsync()
    {
        var input = _transport.Input;
        try
        {
            while (true)
            {
                var result = await input.ReadAsync().ConfigureAwait(false);
                var buffer = result.Buffer;
                // Once a read, not a frame: the clock is a call of its own, and a read of 256 B deliveries holds dozens.
                if (!buffer.IsEmpty) Volatile.Write(ref _lastReceived, Environment.TickCount64);
                _handingOut = Environment.CurrentManagedThreadId;
                try
                {
                    while (AmqpFrameReader.TryReadFrame(ref buffer, _frameMax, out var frame)) Handle(frame);
                }
                finally
                {
                    _handingOut = 0;
                    input.AdvanceTo(buffer.Start, buffer.End);
                }
                WriteAfterRead();
                if (result.IsCompleted)
                {
                    Fail(new IOException($"{Broker} closed the connection"));
                    return;
                }
            }
        }
        catch (Exception e) when (e is IOException or AmqpProtocolException or AmqpException or ObjectDisposedException or InvalidOperationException)
        {
            var failure = e is AmqpProtocolException ? new IOException($"{Broker} sent invalid AMQP: {e.Message}", e) : e;
            Fail(failure);
            // A frame we cannot read leaves the stream at an unknown place: nothing after it can be trusted.
            if (e is AmqpProtocolException) _transport.Abort(failure);
        }
    }

    /// <summary>
    /// Has <paramref name="settlements"/> written once the read being handed out is done, on the read
    /// loop's thread, when called there; false elsewhere. The read's other deliveries are settled by
    /// then, and no thread is woken to write them.
    /// </summary>
    internal bool TryWriteAfterRead(Settlements settlements)
    {
        if (_handingOut != Environment.CurrentManagedThreadId) return false;
        _afterRead.Add(settlements);
        return true;
    }

    private void WriteAfterRead()
    {
        foreach (var settlements in _afterRead) settlements.WriteAfterRead();
        _afterRead.Clear();
    }

    private void Handle(in Frame frame)
    {
        if (frame.Channel == 0)
        {
            if (frame.Type == FrameType.Method) HandleConnectionMethod(frame);
            return;
        }
        // A frame for a channel no longer ours (closed from our side, its close-ok not in yet) is dropped.
        if (ChannelAt(frame.Channel) is not { } channel) return;
        AmqpCommandId id = default;
        if (frame.Type == FrameType.Method)
        {
            id = AmqpFrameReader.ReadCommandId(frame);
            if (id == AmqpCommandId.ChannelClose)
            {
                channel.Close(ChannelClosed(frame));
                _ = ReplyAsync(channel, new ChannelCloseOk());
                return;
            }
            if (channel.TryReply(frame, id)) return;
        }
        channel.OnFrame(frame, id);
    }

    private void HandleConnectionMethod(in Frame frame)
    {
        switch (AmqpFrameReader.ReadCommandId(frame))
        {
            case AmqpCommandId.ConnectionBlocked:
                _unblocked = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
                break;
            case AmqpCommandId.ConnectionUnblocked:
                _unblocked.TrySetResult();
                break;
            case AmqpCommandId.ConnectionClose:
                Fail(ConnectionClosed(frame));
                _ = ReplyAsync(null, new ConnectionCloseOk());
                break;
            case AmqpCommandId.ConnectionCloseOk:
                Volatile.Write(ref _closeOkReceived, true);
                _closeOk.TrySetResult();
                break;
        }
    }

    // A close from the broker, as the exception callers (or the handshake) see.
    private static AmqpException ConnectionClosed(in Frame frame)
    {
        var close = AmqpFrameReader.ReadMethod<ConnectionClose>(frame);
        return new AmqpException(AmqpExceptionKind.ConnectionClosed, close.ReplyCode, close.ReplyText);
    }

    private static AmqpException ChannelClosed(in Frame frame)
    {
        var close = AmqpFrameReader.ReadMethod<ChannelClose>(frame);
        return new AmqpException(AmqpExceptionKind.ChannelClosed, close.ReplyCode, close.ReplyText);
    }

    /// <summary>A close-ok for the broker's close; a closed channel's number is free once it is written.</summary>
    private async Task ReplyAsync<T>(Internal.AmqpChannel? channel, T method)
        where T : struct, IAmqpMethod<T>
    {
        try
        {
            // No check for a failure: the connection may already count as failed (its close is why we reply).
            await Writer.WriteAsync(new MethodFrames<T>(method, channel?.Number ?? 0)).ConfigureAwait(false);
        }
        catch (Exception e) when (e is IOException or InvalidOperationException or ObjectDisposedException)
        {
            // The broker is hanging up anyway; the reply is a courtesy.
        }
        if (channel is not null) Release(channel);
    }
}
