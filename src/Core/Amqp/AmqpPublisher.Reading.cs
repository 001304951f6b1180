using Prewire.Amqp.Internal;
using Prewire.Framing.Internal;
using Prewire.Framing.Internal.Methods;

namespace Prewire.Amqp;

public sealed partial class AmqpPublisher
{
    /// <summary>Reads what the broker sends after the handshake: confirms, returns, blocks, closes, heartbeats.</summary>
    private async Task ReadLoopAsync()
    {
        var input = _connection.Input;
        try
        {
            while (true)
            {
                var result = await input.ReadAsync().ConfigureAwait(false);
                var buffer = result.Buffer;
                try
                {
                    while (AmqpFrameReader.TryReadFrame(ref buffer, _frameMax, out var frame))
                    {
                        Volatile.Write(ref _lastReceived, Environment.TickCount64);
                        Handle(frame);
                    }
                }
                finally
                {
                    input.AdvanceTo(buffer.Start, buffer.End);
                }
                if (result.IsCompleted)
                {
                    Fail(new IOException($"{Broker} closed the connection"));
                    return;
                }
            }
        }
        catch (Exception e) when (e is IOException or AmqpProtocolException or AmqpException or ObjectDisposedException or InvalidOperationException)
        {
            Fail(e is AmqpProtocolException ? new IOException($"{Broker} sent invalid AMQP: {e.Message}", e) : e);
        }
    }

    private void Handle(in Frame frame)
    {
        if (frame.Type == FrameType.Method)
        {
            HandleMethod(frame);
            return;
        }
        if (ChannelOf(frame) is not { } channel) return;
        switch (frame.Type)
        {
            case FrameType.ContentHeader when channel.PendingReturn is { } returned:
                var header = AmqpFrameReader.ReadContentHeader(frame);
                if (_confirmsEnabled && header.Properties.Headers?.GetValueOrDefault(SequenceHeader) is long sequence)
                    channel.Confirms.Returned((ulong)sequence, returned.Code, returned.Text);
                channel.PendingReturn = null;
                break;
        }
    }

    private PublishChannel? ChannelOf(in Frame frame) =>
        frame.Channel >= 1 && frame.Channel <= _channels.Length ? _channels[frame.Channel - 1] : null;

    private void HandleMethod(in Frame frame)
    {
        switch (AmqpFrameReader.ReadCommandId(frame))
        {
            case AmqpCommandId.BasicAck when ChannelOf(frame) is { } channel:
                var ack = AmqpFrameReader.ReadMethod<BasicAck>(frame);
                channel.Confirms.Ack(ack.DeliveryTag, ack.Multiple);
                break;
            case AmqpCommandId.BasicNack when ChannelOf(frame) is { } channel:
                var nack = AmqpFrameReader.ReadMethod<BasicNack>(frame);
                channel.Confirms.Nack(nack.DeliveryTag, nack.Multiple);
                break;
            case AmqpCommandId.BasicReturn when ChannelOf(frame) is { } channel:
                var basicReturn = AmqpFrameReader.ReadMethod<BasicReturn>(frame);
                channel.PendingReturn = (basicReturn.ReplyCode, basicReturn.ReplyText);
                break;
            case AmqpCommandId.ConnectionBlocked:
                _unblocked = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
                break;
            case AmqpCommandId.ConnectionUnblocked:
                _unblocked.TrySetResult();
                break;
            case AmqpCommandId.ConnectionClose:
                Fail(ConnectionClosed(frame));
                _ = ReplyAsync(0, new ConnectionCloseOk());
                break;
            case AmqpCommandId.ConnectionCloseOk:
                Volatile.Write(ref _closeOkReceived, true);
                _closed.TrySetResult();
                break;
            case AmqpCommandId.ChannelClose:
                // Any channel's error ends the publisher: its publishes were spread over all channels,
                // so callers see one failure, not one channel's share of them failing.
                Fail(ChannelClosed(frame));
                _ = ReplyAsync(frame.Channel, new ChannelCloseOk());
                break;
        }
    }

    // A close from the broker, as the exception publishers (or the handshake) see.
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

    private async Task ReplyAsync<T>(ushort channel, T method)
        where T : struct, IAmqpMethod<T>
    {
        try
        {
            await _writeLock.WaitAsync().ConfigureAwait(false);
            try
            {
                AmqpFrameWriter.WriteMethod(_connection.Output, channel, method);
                await _connection.Output.FlushAsync().ConfigureAwait(false);
            }
            finally
            {
                _writeLock.Release();
            }
        }
        catch (Exception e) when (e is IOException or InvalidOperationException or ObjectDisposedException)
        {
            // The broker is hanging up anyway; the reply is a courtesy.
        }
    }

    /// <summary>Sends a heartbeat every half interval; two silent intervals from the broker fail the connection.</summary>
    private async Task HeartbeatLoopAsync(PeriodicTimer timer)
    {
        try
        {
            while (await timer.WaitForNextTickAsync().ConfigureAwait(false) && _failure is null)
            {
                var silent = TimeSpan.FromMilliseconds(Environment.TickCount64 - Volatile.Read(ref _lastReceived));
                if (silent > _heartbeat * 2)
                {
                    var missed = new IOException($"{Broker} sent nothing for {silent.TotalSeconds:0} s (heartbeat {_heartbeat.TotalSeconds:0} s): connection considered dead");
                    Fail(missed);
                    _connection.Abort(missed);
                    return;
                }
                await _writeLock.WaitAsync().ConfigureAwait(false);
                try
                {
                    AmqpFrameWriter.WriteHeartbeat(_connection.Output);
                    await _connection.Output.FlushAsync().ConfigureAwait(false);
                }
                finally
                {
                    _writeLock.Release();
                }
            }
        }
        catch (Exception e) when (e is IOException or InvalidOperationException or ObjectDisposedException)
        {
            Fail(e);
        }
    }
}
