using System.Diagnostics;
using System.Security.Authentication;
using Prewire.Amqp.Internal;
using Prewire.Framing.Internal;
using Prewire.Framing.Internal.Methods;
using Prewire.Transport.Internal;

namespace Prewire.Amqp;

/// <summary>
/// One AMQP 0-9-1 connection: the socket and its pipes, the handshake, heartbeats, the read loop and
/// the channel table, the broker's blocked and close notices. An <see cref="AmqpPublisher"/> and an
/// <see cref="AmqpConsumer"/> each use channels of their own on it; the topology calls
/// (<see cref="DeclareQueueAsync"/> and the rest) one more, opened on the first of them.
/// </summary>
/// <remarks>
/// Every frame is read on one loop that hands it to its channel without copying it. When the
/// connection ends (the broker closes it, the socket fails, heartbeats stop, or it is closed here),
/// every channel learns why, and <see cref="Closed"/> completes with it.
/// </remarks>
public sealed partial class AmqpConnection : IAsyncDisposable
{
    private static readonly TaskCompletionSource _open = CompletedGate();

    private readonly SocketConnection _transport;
    private readonly AmqpUri _address;
    // Authenticated by the client certificate shown in the TLS handshake (EXTERNAL), not the URI's password.
    private bool _external;
    private readonly TimeSpan _closeTimeout;
    private readonly TaskCompletionSource<Exception> _ended = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private readonly TaskCompletionSource _closeOk = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private readonly Lock _channelsLock = new();
    private AmqpChannel?[] _channels = new AmqpChannel?[8];
    private volatile TaskCompletionSource _unblocked = _open;
    private volatile Exception? _failure;
    private uint _frameMax = AmqpConstants.MinFrameMax;
    private ushort _channelMax;
    private TimeSpan _heartbeat;
    private long _lastReceived = Environment.TickCount64;
    private Task _reading = Task.CompletedTask;
    private Task _heartbeating = Task.CompletedTask;
    private PeriodicTimer? _heartbeatTimer;
    private bool _closeOkReceived;

    private AmqpConnection(SocketConnection transport, AmqpConnectionOptions options)
    {
        _transport = transport;
        _address = options.Uri;
        _closeTimeout = options.CloseTimeout;
        Writer = new ConnectionWriter(this, transport, Math.Max(AmqpConstants.MinFrameMax, options.Transport.MaxWriteBufferSize / 2));
    }

    /// <summary>The broker, without credentials.</summary>
    public string Broker => _address.ToString();

    /// <summary>The negotiated frame-max.</summary>
    public uint FrameMax => _frameMax;

    /// <summary>The negotiated heartbeat interval (zero: none).</summary>
    public TimeSpan Heartbeat => _heartbeat;

    /// <summary>True while the broker has blocked publishing (connection.blocked).</summary>
    public bool IsBlocked => !_unblocked.Task.IsCompleted;

    /// <summary>Completes, with the reason, when the connection has ended, whichever way.</summary>
    public Task<Exception> Closed => _ended.Task;

    /// <summary>Every frame the connection sends goes out through it, the handshake's too.</summary>
    internal ConnectionWriter Writer { get; }

    /// <summary>Completes when the broker is not blocking publishers; faults when the connection ends.</summary>
    internal Task Unblocked => _unblocked.Task;

    internal Exception? Failure => _failure;

    /// <summary>Connects (over TLS for <c>amqps://</c>), authenticates (PLAIN, or EXTERNAL with a client certificate), tunes and opens the virtual host.</summary>
    /// <exception cref="IOException">The broker could not be reached, hung up, or failed the TLS check; the message names it and why.</exception>
    /// <exception cref="ArgumentException">A TLS file (<see cref="AmqpConnectionOptions.Tls"/>) cannot be read.</exception>
    /// <exception cref="AmqpException">The broker refused: credentials (403), virtual host (530), ...</exception>
    public static async Task<AmqpConnection> ConnectAsync(AmqpConnectionOptions options, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(options);
        var address = options.Uri ?? throw new ArgumentException($"{nameof(options.Uri)} is required", nameof(options));
        if (address.IsTls && !AmqpFeatures.TlsIsSupported)
            throw new IOException($"this build has no TLS ({AmqpFeatures.TlsSwitch} is off): {address} cannot be reached");
        var tls = address.IsTls && AmqpFeatures.TlsIsSupported ? new AmqpTlsCheck(options.Tls, address.Host) : null;
        using var timeout = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken);
        timeout.CancelAfter(options.HandshakeTimeout);
        SocketConnection transport;
        try
        {
            // The transport times the connect and the TLS handshake itself, within the handshake's limit when that
            // is shorter (an app's --connect-timeout 2 against its 10 s), so its line says which step the peer never
            // finished; a second timer here would race it.
            var connectLimit = IsShorter(options.Transport.ConnectTimeout, options.HandshakeTimeout) ? options.Transport.ConnectTimeout : options.HandshakeTimeout;
            transport = await SocketConnection.ConnectAsync(address.Host, address.Port, options.Transport, tls?.ClientOptions(), connectLimit, cancellationToken).ConfigureAwait(false);
        }
        catch (AuthenticationException e)
        {
            throw new IOException(tls!.Describe($"{address.Host}:{address.Port}", e), e);
        }
        var connection = new AmqpConnection(transport, options) { _external = tls?.ClientCertificate is not null };
        try
        {
            await connection.HandshakeAsync(options, timeout.Token).ConfigureAwait(false);
        }
        catch (OperationCanceledException) when (!cancellationToken.IsCancellationRequested)
        {
            await transport.DisposeAsync().ConfigureAwait(false);
            throw new IOException($"{address} did not complete the AMQP handshake within {options.HandshakeTimeout.TotalSeconds:0.#} s");
        }
        catch (AmqpException e)
        {
            await transport.DisposeAsync().ConfigureAwait(false);
            throw new AmqpException(connection.Broker, e);
        }
        catch
        {
            await transport.DisposeAsync().ConfigureAwait(false);
            throw;
        }
        connection._reading = connection.ReadLoopAsync();
        if (connection._heartbeat > TimeSpan.Zero)
        {
            connection._heartbeatTimer = new PeriodicTimer(connection._heartbeat / 2);
            connection._heartbeating = connection.HeartbeatLoopAsync(connection._heartbeatTimer);
        }
        return connection;
    }

    // Infinite (-1 ms) is the longest of timeouts, not the shortest.
    private static bool IsShorter(TimeSpan a, TimeSpan b) => a != Timeout.InfiniteTimeSpan && (b == Timeout.InfiniteTimeSpan || a < b);

    /// <summary>
    /// Closes the connection politely (connection.close, then close-ok) and the socket, within
    /// <see cref="AmqpConnectionOptions.CloseTimeout"/> in all. Every channel's user sees it closed.
    /// </summary>
    public async Task CloseAsync(CancellationToken cancellationToken = default)
    {
        var started = Stopwatch.GetTimestamp();
        TimeSpan Left() => TimeSpan.FromTicks(Math.Max(0, (_closeTimeout - Stopwatch.GetElapsedTime(started)).Ticks));
        if (_failure is null)
        {
            // A writer stuck behind back-pressure (a blocked broker) must not keep the close waiting
            // forever: without a turn in time, skip the polite close.
            try
            {
                var written = await Writer.TryWriteAsync(new MethodFrames<ConnectionClose>(new(200, "Goodbye", 0, 0), mustBeOpen: this), Left(), cancellationToken).ConfigureAwait(false);
                if (written) await Task.WhenAny(_closeOk.Task, Task.Delay(Left(), cancellationToken)).ConfigureAwait(false);
            }
            catch (Exception e) when (e is IOException or AmqpException or InvalidOperationException or ObjectDisposedException)
            {
                // The connection failed meanwhile, or its send side did before the read loop saw it: the loss
                // is no news to whoever closes.
            }
        }
        Fail(new ObjectDisposedException(nameof(AmqpConnection), $"the connection to {Broker} was closed"));
        // After close-ok the broker drops the socket at once (often with a reset): AMQP lets the client
        // close too, so a TCP half-close would only wait for that reset.
        if (Volatile.Read(ref _closeOkReceived)) _transport.Abort(null);
        else await _transport.CloseAsync(Left()).ConfigureAwait(false);
    }

    /// <inheritdoc />
    public async ValueTask DisposeAsync()
    {
        if (_failure is null) await CloseAsync().ConfigureAwait(false);
        // Both loops end without an exception: a disposed timer stops waiting, a disposed connection
        // completes Input and the flushes waiting on Output.
        _heartbeatTimer?.Dispose();
        await _transport.DisposeAsync().ConfigureAwait(false);
        await Task.WhenAll(_reading, _heartbeating).ConfigureAwait(false);
    }

    /// <summary>Throws why the connection ended, as a new exception each time (one instance must not be thrown from several tasks).</summary>
    internal void ThrowIfFailed()
    {
        if (_failure is { } failure) throw Rethrowable(failure);
    }

    internal static Exception Rethrowable(Exception failure) => failure switch
    {
        AmqpException amqp => new AmqpException(amqp.Kind, amqp.ReplyCode, amqp.ReplyText, amqp),
        ObjectDisposedException disposed => new ObjectDisposedException(disposed.ObjectName, disposed.Message),
        _ => new IOException(failure.Message, failure),
    };

    /// <summary>The connection is gone: every channel learns why, once, and waiters are released.</summary>
    private void Fail(Exception failure)
    {
        if (Interlocked.CompareExchange(ref _failure, failure, null) is not null) return;
        AmqpChannel?[] channels;
        lock (_channelsLock) channels = _channels;
        foreach (var channel in channels) channel?.Close(failure);
        _unblocked.TrySetException(failure);
        _unblocked.Task.Exception?.Handle(static _ => true);
        _closeOk.TrySetResult();
        _ended.TrySetResult(failure);
    }

    private static TaskCompletionSource CompletedGate()
    {
        var gate = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        gate.SetResult();
        return gate;
    }
}
