using Prewire.Amqp.Internal;
using Prewire.Framing.Internal;
using Prewire.Framing.Internal.Methods;

namespace Prewire.Amqp;

public sealed partial class AmqpConnection
{
    /// <summary>Opens <paramref name="channels"/> in one flush (channel.open each), numbering them from the first free number.</summary>
    internal async Task OpenChannelsAsync(IReadOnlyList<AmqpChannel> channels, CancellationToken cancellationToken)
    {
        var replies = new Task<ChannelOpenOk>[channels.Count];
        lock (_channelsLock)
        {
            for (var i = 0; i < channels.Count; i++)
            {
                var number = FreeNumber() ?? throw new IOException($"{Broker} allows {_channelMax} channels per connection; {channels.Count} more were asked for");
                channels[i].Number = number;
                var table = _channels;
                if (number >= table.Length) Array.Resize(ref table, Math.Max(number + 1, table.Length * 2));
                table[number] = channels[i];
                Volatile.Write(ref _channels, table);
            }
        }
        await SendAsync(channels, new ChannelOpen(""), replies, cancellationToken).ConfigureAwait(false);
        await Task.WhenAll(replies).ConfigureAwait(false);
    }

    /// <summary>Sends <paramref name="request"/> on each channel in one flush; each channel's reply lands in <paramref name="replies"/>.</summary>
    internal async Task SendAsync<TRequest, TReply>(IReadOnlyList<AmqpChannel> channels, TRequest request, Task<TReply>[] replies, CancellationToken cancellationToken)
        where TRequest : struct, IAmqpMethod<TRequest>
        where TReply : struct, IAmqpMethod<TReply>
    {
        for (var i = 0; i < channels.Count; i++)
        {
            var reply = new PendingReply<TReply>();
            channels[i].Expect(reply);
            replies[i] = reply.Task;
        }
        await Writer.WriteAsync(new MethodFrames<TRequest>(request, channels: channels, mustBeOpen: this), cancellationToken).ConfigureAwait(false);
        ThrowIfFailed();
    }

    /// <summary>A synchronous method on <paramref name="channel"/>: sends <paramref name="request"/>, returns the broker's <typeparamref name="TReply"/>.</summary>
    /// <exception cref="AmqpException">The broker closed the channel (or the connection) instead.</exception>
    internal async Task<TReply> CallAsync<TRequest, TReply>(AmqpChannel channel, TRequest request, CancellationToken cancellationToken)
        where TRequest : struct, IAmqpMethod<TRequest>
        where TReply : struct, IAmqpMethod<TReply>
    {
        var replies = new Task<TReply>[1];
        await SendAsync([channel], request, replies, cancellationToken).ConfigureAwait(false);
        return await replies[0].WaitAsync(cancellationToken).ConfigureAwait(false);
    }

    /// <summary>Closes <paramref name="channel"/> from our side (channel.close, then close-ok) and frees its number.</summary>
    internal async Task CloseChannelAsync(AmqpChannel channel, CancellationToken cancellationToken)
    {
        if (channel.Failure is null && _failure is null)
        {
            try
            {
                await CallAsync<ChannelClose, ChannelCloseOk>(channel, new ChannelClose(200, "Goodbye", 0, 0), cancellationToken).ConfigureAwait(false);
            }
            catch (Exception e) when (e is IOException or AmqpException or ObjectDisposedException)
            {
                // The connection is going anyway: the channel goes with it.
            }
        }
        channel.Close(new ObjectDisposedException(channel.GetType().Name, $"the channel to {Broker} was closed"));
        Release(channel);
    }

    private AmqpChannel? ChannelAt(ushort number)
    {
        var table = Volatile.Read(ref _channels);
        return number < table.Length ? table[number] : null;
    }

    private void Release(AmqpChannel channel)
    {
        lock (_channelsLock)
        {
            if (channel.Number < _channels.Length && _channels[channel.Number] == channel) _channels[channel.Number] = null;
        }
    }

    // The lowest number not in use; a number the broker closed is free once our close-ok is written.
    private ushort? FreeNumber()
    {
        var max = _channelMax == 0 ? ushort.MaxValue : _channelMax;
        for (var number = 1; number <= max; number++)
        {
            if (number >= _channels.Length || _channels[number] is null) return (ushort)number;
        }
        return null;
    }
}
