using System.Buffers;
using System.IO.Pipelines;
using System.Runtime.CompilerServices;
using Prewire.Amqp.Internal;
using Prewire.Framing.Internal;
using Prewire.Framing.Internal.Methods;
using Prewire.Tasks;

namespace Prewire.Amqp;

/// <summary>
/// A zero-copy AMQP 0-9-1 publisher with publisher confirms, on <see cref="AmqpPublisherOptions.Channels"/>
/// channels (one by default) of an <see cref="AmqpConnection"/>: its own, or one it shares with a consumer.
/// <see cref="PublishAsync(string, string, BasicProperties?, ReadOnlySequence{byte}, bool, CancellationToken)"/>
/// writes the frames straight into the connection's pipe on the caller's thread:
/// the body goes from the caller's memory into the pipe's, and nowhere else. A body larger than half
/// the write buffer does not even go there: its frames are laid out around the caller's memory and
/// the connection's send loop sends them from it (a 1 MiB body in one system call on Linux), in parts
/// of 16 frames with other channels' frames between the parts (AMQP allows it across channels, never
/// within one: a channel is held from its method frame to its last body frame). Concurrent publishers
/// take turns at the writer without blocking a thread; each one's task completes when the broker
/// confirmed its message (or, with <see cref="AmqpPublisherOptions.Confirms"/> off, once its frames are
/// flushed or sent).
/// </summary>
/// <remarks>
/// The task of a publish fails with <see cref="AmqpException"/> when the broker nacks it, returns it
/// (mandatory, unroutable) or closes the channel or connection, and with <see cref="IOException"/>
/// when the connection is lost: every publish not yet confirmed then fails; none is reported
/// confirmed that the broker did not ack. While the broker has blocked the connection (a resource
/// alarm), publishes wait. Cancelling a publish stops the wait; a message already written is not
/// taken back.
/// </remarks>
public sealed class AmqpPublisher : IAsyncDisposable
{
    // A body frame is two segments of a vectored send (its payload, then its end octet with the next
    // frame's header): 16 frames (2 MiB at frame-max 128 KiB) are 33 segments, one sendmsg on Linux, so a
    // 1 MiB body goes out in one call, and a larger one lets other channels' frames in every 2 MiB.
    private const int FramesPerPart = 16;

    /// <summary>
    /// The header a mandatory publish carries its sequence number in, to match a basic.return to it; not
    /// the message's own, so receivers leave it out of the headers they hand on.
    /// </summary>
    internal const string SequenceHeader = "x-prewire-publish-seq";

    private readonly AmqpConnection _connection;
    private readonly bool _ownsConnection;
    private readonly PublishChannel[] _channels;
    private volatile Exception? _failure;
    private int _nextChannel;
    private bool _confirmsEnabled;

    private AmqpPublisher(AmqpConnection connection, bool ownsConnection, int channels)
    {
        _connection = connection;
        _ownsConnection = ownsConnection;
        _channels = new PublishChannel[channels];
        for (var i = 0; i < channels; i++) _channels[i] = new PublishChannel(this);
    }

    /// <summary>The broker, without credentials.</summary>
    public string Broker => _connection.Broker;

    /// <summary>The negotiated frame-max.</summary>
    public uint FrameMax => _connection.FrameMax;

    /// <summary>The negotiated heartbeat interval (zero: none).</summary>
    public TimeSpan Heartbeat => _connection.Heartbeat;

    /// <summary>The number of channels publishes are spread over.</summary>
    public int Channels => _channels.Length;

    /// <summary>True while the broker has blocked publishing (connection.blocked).</summary>
    public bool IsBlocked => _connection.IsBlocked;

    /// <summary>The connection the publisher's channels are on.</summary>
    public AmqpConnection Connection => _connection;

    /// <summary>Connects (<see cref="AmqpConnection.ConnectAsync"/>), then opens the publisher's channels on a connection of its own, closed with it.</summary>
    /// <exception cref="IOException">The broker could not be reached or hung up; the message names it.</exception>
    /// <exception cref="AmqpException">The broker refused: credentials (403), virtual host (530), ...</exception>
    public static async Task<AmqpPublisher> ConnectAsync(AmqpPublisherOptions options, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(options);
        CheckChannels(options.Channels);
        var connection = await AmqpConnection.ConnectAsync(options, cancellationToken).ConfigureAwait(false);
        try
        {
            return await OpenAsync(connection, ownsConnection: true, options.Channels, options.Confirms, cancellationToken).ConfigureAwait(false);
        }
        catch
        {
            await connection.DisposeAsync().ConfigureAwait(false);
            throw;
        }
    }

    /// <summary>Opens a publisher's channels on <paramref name="connection"/> (in confirm mode unless <paramref name="confirms"/> is false); closing it closes them, not the connection.</summary>
    public static Task<AmqpPublisher> OpenAsync(AmqpConnection connection, int channels = 1, bool confirms = true, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(connection);
        CheckChannels(channels);
        return OpenAsync(connection, ownsConnection: false, channels, confirms, cancellationToken);
    }

    private static async Task<AmqpPublisher> OpenAsync(AmqpConnection connection, bool ownsConnection, int channels, bool confirms, CancellationToken cancellationToken)
    {
        var publisher = new AmqpPublisher(connection, ownsConnection, channels);
        await connection.OpenChannelsAsync(publisher._channels, cancellationToken).ConfigureAwait(false);
        if (confirms)
        {
            var replies = new Task<ConfirmSelectOk>[channels];
            await connection.SendAsync(publisher._channels, new ConfirmSelect(false), replies, cancellationToken).ConfigureAwait(false);
            await Task.WhenAll(replies).ConfigureAwait(false);
            publisher._confirmsEnabled = true;
            foreach (var channel in publisher._channels) channel.ConfirmsEnabled = true;
        }
        return publisher;
    }

    private static void CheckChannels(int channels)
    {
        if (channels is < 1 or > ushort.MaxValue)
            throw new ArgumentOutOfRangeException(nameof(channels), channels, $"{nameof(AmqpPublisherOptions.Channels)} must be 1 to {ushort.MaxValue} (AMQP numbers channels in 16 bits, 0 being the connection's)");
    }

    /// <summary>Publishes <paramref name="body"/>; completes when the broker confirmed it.</summary>
    public ValueTask PublishAsync(string exchange, string routingKey, BasicProperties? properties, ReadOnlyMemory<byte> body, bool mandatory = false, CancellationToken cancellationToken = default) =>
        PublishCoreAsync(exchange, routingKey, properties, new ReadOnlySequence<byte>(body), mandatory, owner: null, cancellationToken);

    /// <summary>Publishes a multi-segment <paramref name="body"/>; completes when the broker confirmed it.</summary>
    public ValueTask PublishAsync(string exchange, string routingKey, BasicProperties? properties, ReadOnlySequence<byte> body, bool mandatory = false, CancellationToken cancellationToken = default) =>
        PublishCoreAsync(exchange, routingKey, properties, body, mandatory, owner: null, cancellationToken);

    /// <summary>
    /// Publishes the first <paramref name="length"/> bytes of <paramref name="owner"/>'s memory and
    /// disposes <paramref name="owner"/> as soon as they are written to the pipe or, for a large body,
    /// sent (before the confirm), or when the publish fails before that.
    /// </summary>
    public ValueTask PublishAsync(string exchange, string routingKey, BasicProperties? properties, IMemoryOwner<byte> owner, int length, bool mandatory = false, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(owner);
        return PublishCoreAsync(exchange, routingKey, properties, new ReadOnlySequence<byte>(owner.Memory[..length]), mandatory, owner, cancellationToken);
    }

    /// <summary>
    /// Closes the publisher: its own connection politely (connection.close, then close-ok) within
    /// <see cref="AmqpConnectionOptions.CloseTimeout"/>, or, on a shared connection, its channels.
    /// Publishes not yet confirmed fail.
    /// </summary>
    public async Task CloseAsync(CancellationToken cancellationToken = default)
    {
        if (_ownsConnection)
        {
            await _connection.CloseAsync(cancellationToken).ConfigureAwait(false);
            return;
        }
        foreach (var channel in _channels) await _connection.CloseChannelAsync(channel, cancellationToken).ConfigureAwait(false);
    }

    /// <inheritdoc />
    public async ValueTask DisposeAsync()
    {
        if (_ownsConnection) await _connection.DisposeAsync().ConfigureAwait(false);
        else if (_failure is null) await CloseAsync().ConfigureAwait(false);
    }

    // Usually suspends (the confirm is a network round trip), so its state machine comes from a pool
    // (ours: confirms complete publishes in bursts on the read loop, more at once than the runtime's pool keeps).
    [AsyncMethodBuilder(typeof(PooledValueTaskMethodBuilder))]
    private async ValueTask PublishCoreAsync(string exchange, string routingKey, BasicProperties? properties, ReadOnlySequence<byte> body, bool mandatory, IMemoryOwner<byte>? owner, CancellationToken cancellationToken)
    {
        PooledCompletion<bool> confirm;
        try
        {
            var unblocked = _connection.Unblocked;
            if (!unblocked.IsCompleted) await unblocked.WaitAsync(cancellationToken).ConfigureAwait(false);
            var channel = TakeFreeChannel(out var next);
            if (channel is null)
            {
                channel = next;
                await channel.Turn.WaitAsync().ConfigureAwait(false);
            }
            var method = new BasicPublish(0, exchange, routingKey, mandatory, false);
            var handedOver = false;
            try
            {
                if (body.Length <= _connection.Writer.FlushThreshold)
                {
                    await channel.WriteAsync(_connection.Writer, method, properties, body, cancellationToken).ConfigureAwait(false);
                    confirm = channel.TakeConfirm();
                }
                else
                {
                    // The send loop sends a direct send after what was flushed before it: what this channel's
                    // last publish left in the pipe for a later turn to flush must be flushed first, or this overtakes it.
                    if (channel.LastPipeWrite == _connection.Writer.Flushes) await _connection.Writer.FlushAsync(cancellationToken).ConfigureAwait(false);
                    var sent = SendDirect(channel, method, properties, body, _confirmsEnabled ? owner : null, out confirm);
                    if (_confirmsEnabled)
                    {
                        // The send gives the channel back and disposes the owner once the body is out.
                        handedOver = true;
                        owner = null;
                    }
                    // The channel stays ours until the body is out: its next content must not start before.
                    else await sent.ConfigureAwait(false);
                }
            }
            finally
            {
                if (!handedOver) channel.Turn.Release();
            }
        }
        finally
        {
            owner?.Dispose();
        }
        if (_confirmsEnabled) await confirm.Task.ConfigureAwait(false);
    }

    /// <summary>A body up to the flush threshold: its frames are written into the connection's pipe, in the connection's write turn.</summary>
    internal void WriteToPipe(PipeWriter output, PublishChannel channel, in BasicPublish method, BasicProperties? properties, in ReadOnlySequence<byte> body)
    {
        ThrowIfFailed();
        var sequence = channel.LastSequence + 1;
        AmqpFrameWriter.WritePublish(output, channel.Number, method, properties, method.Mandatory ? SequenceHeader : null, (long)sequence, body, _connection.FrameMax);
        channel.Published(sequence, _connection.Writer.Flushes);
    }

    /// <summary>
    /// A body larger than the flush threshold goes from the caller's memory to the socket without a copy
    /// and without filling the pipe: the frames around it are laid out beside it and the send loop sends
    /// them together, a 1 MiB body in one system call, with other channels' frames between the parts. No
    /// write turn: the channel orders its own publishes, and the send loop puts whole frames of others only
    /// between this body's parts.
    /// </summary>
    private ValueTask SendDirect(PublishChannel channel, in BasicPublish method, BasicProperties? properties, in ReadOnlySequence<byte> body, IMemoryOwner<byte>? handOver, out PooledCompletion<bool> confirm)
    {
        ThrowIfFailed();
        // Laid out before anything is committed: a header that cannot be written leaves the channel as it was.
        var sequence = channel.LastSequence + 1;
        var (content, send) = channel.Direct;
        content.Reset();
        AmqpFrameWriter.WritePublishHead(content.Head, channel.Number, method, (ulong)body.Length, properties, method.Mandatory ? SequenceHeader : null, (long)sequence);
        var frames = content.Frame(channel.Number, body, _connection.FrameMax, FramesPerPart);
        channel.Published(sequence, pipeWrite: -1);
        confirm = channel.TakeConfirm();
        if (_confirmsEnabled) send.HandOver(handOver);
        return _connection.Writer.SendDirectAsync(send, frames, content.PartEnds);
    }

    /// <summary>
    /// The first channel, from the next in turn on, that no publish holds, taken; or null, and the next in
    /// turn to wait for. A publish holds its channel until its body is out (a 1 MiB body's parts wait for
    /// the socket), so a free one is usually there, and waiting would cost a hand-off through the pool.
    /// </summary>
    private PublishChannel? TakeFreeChannel(out PublishChannel next)
    {
        var count = (uint)_channels.Length;
        var start = (uint)Interlocked.Increment(ref _nextChannel);
        next = _channels[(int)(start % count)];
        for (var i = 0u; i < count; i++)
        {
            var channel = _channels[(int)((start + i) % count)];
            if (channel.Turn.TryEnter()) return channel;
        }
        return null;
    }

    private void ThrowIfFailed()
    {
        if (_failure is { } failure) throw AmqpConnection.Rethrowable(failure);
    }

    /// <summary>
    /// One of the publisher's channels ended (the broker closed it, or the connection went): the
    /// publisher fails as a whole, once. Its publishes were spread over all channels, so callers see one
    /// failure, not one channel's share of them failing.
    /// </summary>
    internal void Fail(Exception failure)
    {
        if (Interlocked.CompareExchange(ref _failure, failure, null) is not null) return;
        foreach (var channel in _channels) channel.Confirms.FailAll(failure);
    }
}
