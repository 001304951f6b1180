using System.Buffers;
using System.Diagnostics;
using System.IO.Pipelines;
using System.Runtime.CompilerServices;
using Prewire.Amqp.Internal;
using Prewire.Framing.Internal;
using Prewire.Framing.Internal.Methods;
using Prewire.Tasks;
using Prewire.Transport.Internal;

namespace Prewire.Amqp;

/// <summary>
/// A zero-copy AMQP 0-9-1 publisher with publisher confirms, on one connection and
/// <see cref="AmqpPublisherOptions.Channels"/> channels (one by default).
/// <see cref="PublishAsync(string, string, BasicProperties?, ReadOnlySequence{byte}, bool, CancellationToken)"/>
/// writes the frames straight into the connection's <see cref="PipeWriter"/> on the caller's thread:
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
public sealed partial class AmqpPublisher : IAsyncDisposable
{
    private const string SequenceHeader = "x-prewire-publish-seq";

    // A body frame is two segments of a vectored send (its payload, then its end octet with the next
    // frame's header): 16 frames (2 MiB at frame-max 128 KiB) are 33 segments, one sendmsg on Linux, so a
    // 1 MiB body goes out in one call, and a larger one lets other channels' frames in every 2 MiB.
    private const int FramesPerPart = 16;

    private static readonly TaskCompletionSource _open = CompletedGate();

    private readonly SocketConnection _connection;
    private readonly AmqpUri _address;
    private readonly TimeSpan _closeTimeout;
    private readonly AsyncLock _writeLock = new();
    private readonly PublishChannel[] _channels;
    private readonly TaskCompletionSource _closed = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private volatile TaskCompletionSource _unblocked = _open;
    private volatile Exception? _failure;
    private uint _frameMax = AmqpConstants.MinFrameMax;
    private TimeSpan _heartbeat;
    private int _nextChannel;
    private bool _confirmsEnabled;
    private readonly long _flushThreshold;
    private long _lastReceived = Environment.TickCount64;
    private Task _reading = Task.CompletedTask;
    private Task _heartbeating = Task.CompletedTask;
    private PeriodicTimer? _heartbeatTimer;
    private bool _closeOkReceived;

    private AmqpPublisher(SocketConnection connection, AmqpUri address, TimeSpan closeTimeout, long flushThreshold, int channels)
    {
        _connection = connection;
        _address = address;
        _closeTimeout = closeTimeout;
        _flushThreshold = flushThreshold;
        _channels = new PublishChannel[channels];
        for (var i = 0; i < channels; i++) _channels[i] = new PublishChannel((ushort)(i + 1));
    }

    /// <summary>The broker, without credentials.</summary>
    public string Broker => _address.ToString();

    /// <summary>The negotiated frame-max.</summary>
    public uint FrameMax => _frameMax;

    /// <summary>The negotiated heartbeat interval (zero: none).</summary>
    public TimeSpan Heartbeat => _heartbeat;

    /// <summary>The number of channels publishes are spread over.</summary>
    public int Channels => _channels.Length;

    /// <summary>True while the broker has blocked publishing (connection.blocked).</summary>
    public bool IsBlocked => !_unblocked.Task.IsCompleted;

    /// <summary>Connects, authenticates (PLAIN), tunes, opens the virtual host and a channel in confirm mode.</summary>
    /// <exception cref="IOException">The broker could not be reached or hung up; the message names it.</exception>
    /// <exception cref="AmqpException">The broker refused: credentials (403), virtual host (530), ...</exception>
    public static async Task<AmqpPublisher> ConnectAsync(AmqpPublisherOptions options, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(options);
        if (options.Channels is < 1 or > ushort.MaxValue)
            throw new ArgumentOutOfRangeException(nameof(options), options.Channels, $"{nameof(options.Channels)} must be 1 to {ushort.MaxValue} (AMQP numbers channels in 16 bits, 0 being the connection's)");
        var address = options.Uri ?? throw new ArgumentException($"{nameof(options.Uri)} is required", nameof(options));
        if (address.IsTls) throw new NotSupportedException($"AmqpPublisher speaks amqp:// only, not TLS ({address}): use RabbitMQ.Client for amqps://");
        using var timeout = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken);
        timeout.CancelAfter(options.HandshakeTimeout);
        var connection = await SocketConnection.ConnectAsync(address.Host, address.Port, options.Transport, timeout.Token).ConfigureAwait(false);
        var publisher = new AmqpPublisher(connection, address, options.CloseTimeout, Math.Max(AmqpConstants.MinFrameMax, options.Transport.MaxWriteBufferSize / 2), options.Channels);
        try
        {
            await publisher.HandshakeAsync(options, timeout.Token).ConfigureAwait(false);
        }
        catch (OperationCanceledException) when (!cancellationToken.IsCancellationRequested)
        {
            await connection.DisposeAsync().ConfigureAwait(false);
            throw new IOException($"{address} did not complete the AMQP handshake within {options.HandshakeTimeout.TotalSeconds:0.#} s");
        }
        catch
        {
            await connection.DisposeAsync().ConfigureAwait(false);
            throw;
        }
        publisher._reading = publisher.ReadLoopAsync();
        if (publisher._heartbeat > TimeSpan.Zero)
        {
            publisher._heartbeatTimer = new PeriodicTimer(publisher._heartbeat / 2);
            publisher._heartbeating = publisher.HeartbeatLoopAsync(publisher._heartbeatTimer);
        }
        return publisher;
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
    /// Closes the connection politely (connection.close, then close-ok) and the socket, within
    /// <see cref="AmqpPublisherOptions.CloseTimeout"/> in all.
    /// </summary>
    public async Task CloseAsync(CancellationToken cancellationToken = default)
    {
        var started = Stopwatch.GetTimestamp();
        TimeSpan Left() => TimeSpan.FromTicks(Math.Max(0, (_closeTimeout - Stopwatch.GetElapsedTime(started)).Ticks));
        if (_failure is null)
        {
            // A writer stuck behind back-pressure (a blocked broker) must not keep the close waiting
            // forever: without the lock in time, skip the polite close; the late turn is handed back.
            var turn = _writeLock.WaitAsync().AsTask();
            if (await Task.WhenAny(turn, Task.Delay(Left(), cancellationToken)).ConfigureAwait(false) == turn)
            {
                try
                {
                    if (_failure is null)
                    {
                        AmqpFrameWriter.WriteMethod(_connection.Output, 0, new ConnectionClose(200, "Goodbye", 0, 0));
                        await _connection.Output.FlushAsync(cancellationToken).ConfigureAwait(false);
                    }
                }
                finally
                {
                    _writeLock.Release();
                }
                await Task.WhenAny(_closed.Task, Task.Delay(Left(), cancellationToken)).ConfigureAwait(false);
            }
            else
            {
                _ = turn.ContinueWith(static (_, state) => ((AsyncLock)state!).Release(), _writeLock, CancellationToken.None, TaskContinuationOptions.ExecuteSynchronously, TaskScheduler.Default);
            }
        }
        Fail(new ObjectDisposedException(nameof(AmqpPublisher), $"the publisher to {Broker} was closed"));
        // After close-ok the broker drops the socket at once (often with a reset): AMQP lets the client
        // close too, so a TCP half-close would only wait for that reset.
        if (Volatile.Read(ref _closeOkReceived)) _connection.Abort(null);
        else await _connection.CloseAsync(Left()).ConfigureAwait(false);
    }

    /// <inheritdoc />
    public async ValueTask DisposeAsync()
    {
        if (_failure is null) await CloseAsync().ConfigureAwait(false);
        // Both loops end without an exception: a disposed timer stops waiting, a disposed connection
        // completes Input and the flushes waiting on Output.
        _heartbeatTimer?.Dispose();
        await _connection.DisposeAsync().ConfigureAwait(false);
        await Task.WhenAll(_reading, _heartbeating).ConfigureAwait(false);
    }

    // Usually suspends (the confirm is a network round trip), so its state machine comes from a pool
    // (ours: confirms complete publishes in bursts on the read loop, more at once than the runtime's pool keeps).
    [AsyncMethodBuilder(typeof(PooledValueTaskMethodBuilder))]
    private async ValueTask PublishCoreAsync(string exchange, string routingKey, BasicProperties? properties, ReadOnlySequence<byte> body, bool mandatory, IMemoryOwner<byte>? owner, CancellationToken cancellationToken)
    {
        PooledCompletion<bool> confirm = default;
        var handedOver = false;
        try
        {
            var unblocked = _unblocked.Task;
            if (!unblocked.IsCompleted) await unblocked.WaitAsync(cancellationToken).ConfigureAwait(false);
            var channel = TakeFreeChannel(out var next);
            if (channel is null)
            {
                channel = next;
                await channel.Turn.WaitAsync().ConfigureAwait(false);
            }
            try
            {
                var sent = default(ValueTask);
                if (body.Length > _flushThreshold)
                {
                    // The send loop sends a direct send after what was flushed before it; what this channel's
                    // last publish left for a later writer to flush must be flushed first, or this overtakes it.
                    if (channel.MaybeUnflushed)
                    {
                        await _writeLock.WaitAsync().ConfigureAwait(false);
                        try
                        {
                            var output = _connection.Output;
                            if (output.UnflushedBytes > 0 && (await output.FlushAsync(cancellationToken).ConfigureAwait(false)).IsCompleted) ThrowIfFailed();
                            channel.MaybeUnflushed = false;
                        }
                        finally
                        {
                            _writeLock.Release();
                        }
                    }
                    // No write lock: the channel orders its own publishes, and the send loop puts whole frames
                    // of others only between this body's parts.
                    ThrowIfFailed();
                    // Laid out before anything is committed: a header that cannot be written leaves the channel as it was.
                    var sequence = channel.LastSequence + 1;
                    var (content, send) = channel.Direct;
                    var frames = FrameDirect(channel.Number, content, new BasicPublish(0, exchange, routingKey, mandatory, false), properties, mandatory ? SequenceHeader : null, (long)sequence, body);
                    channel.LastSequence = sequence;
                    if (_confirmsEnabled)
                    {
                        confirm = channel.Confirms.Register(sequence);
                        // The confirm comes after the body is out: the send gives the channel back itself.
                        send.HandOver(owner);
                        owner = null;
                        handedOver = true;
                    }
                    sent = _connection.SendDirectAsync(send, frames, content.PartEnds);
                }
                else
                {
                    await _writeLock.WaitAsync().ConfigureAwait(false);
                    try
                    {
                        ThrowIfFailed();
                        var sequence = channel.LastSequence + 1;
                        var output = _connection.Output;
                        AmqpFrameWriter.WritePublishHead(output, channel.Number, new BasicPublish(0, exchange, routingKey, mandatory, false), (ulong)body.Length, properties, mandatory ? SequenceHeader : null, (long)sequence);
                        AmqpFrameWriter.WriteContentBody(output, channel.Number, body, _frameMax);
                        channel.LastSequence = sequence;
                        if (_confirmsEnabled) confirm = channel.Confirms.Register(sequence);
                        owner?.Dispose();
                        owner = null;
                        // The last of a burst of queued publishers flushes for all of them (or anyone past the threshold).
                        var flush = !_writeLock.HasWaiters || output.UnflushedBytes >= _flushThreshold;
                        channel.MaybeUnflushed = !flush;
                        if (flush && (await output.FlushAsync(cancellationToken).ConfigureAwait(false)).IsCompleted) ThrowIfFailed();
                    }
                    finally
                    {
                        _writeLock.Release();
                    }
                }
                // The channel stays ours until the body is out: its next content must not start before.
                if (!handedOver) await sent.ConfigureAwait(false);
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

    /// <summary>
    /// A body larger than the flush threshold goes from the caller's memory to the socket without a copy
    /// and without filling the pipe: the frames around it are laid out beside it and the send loop sends
    /// them together, a 1 MiB body in one system call, with other channels' frames between the parts.
    /// </summary>
    private ReadOnlySequence<byte> FrameDirect(ushort channel, FramedContent content, in BasicPublish method, BasicProperties? properties, string? extraHeader, long extraValue, in ReadOnlySequence<byte> body)
    {
        content.Reset();
        AmqpFrameWriter.WritePublishHead(content.Head, channel, method, (ulong)body.Length, properties, extraHeader, extraValue);
        return content.Frame(channel, body, _frameMax, FramesPerPart);
    }

    private void ThrowIfFailed()
    {
        if (_failure is { } failure) throw Rethrowable(failure);
    }

    private static Exception Rethrowable(Exception failure) => failure switch
    {
        AmqpException amqp => new AmqpException(amqp.Kind, amqp.ReplyCode, amqp.ReplyText, amqp),
        ObjectDisposedException disposed => new ObjectDisposedException(disposed.ObjectName, disposed.Message),
        _ => new IOException(failure.Message, failure),
    };

    /// <summary>The connection or channel is gone: fail everything outstanding, once, and release waiters.</summary>
    private void Fail(Exception failure)
    {
        if (Interlocked.CompareExchange(ref _failure, failure, null) is not null) return;
        foreach (var channel in _channels) channel.Confirms.FailAll(failure);
        _unblocked.TrySetException(failure);
        _closed.TrySetResult();
    }

    private static TaskCompletionSource CompletedGate()
    {
        var gate = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        gate.SetResult();
        return gate;
    }
}
