using System.IO.Pipelines;
using Prewire.Framing.Internal;
using Prewire.Framing.Internal.Methods;
using Prewire.Tasks;

namespace Prewire.Amqp.Internal;

/// <summary>
/// A consumer channel's acks, nacks and rejects, written by one loop of its own. Acks made in order
/// (each of the lowest delivery not yet settled) go out as one <c>basic.ack</c> with <c>multiple</c>
/// for the last of them: safe, since every delivery below it is settled, and those settled otherwise
/// were written before it. An ack past a delivery still
/// being handled goes out alone (holding it back could fill the prefetch window behind one slow
/// handler); a nack or reject goes out alone, before any multiple ack that covers it.
/// </summary>
/// <remarks>
/// Settlements made on the read loop (handlers that complete synchronously) are written on it once the
/// read is handed out: a read's acks in one frame, sent by the receiving thread, no thread woken. Others
/// wake the loop on the thread pool, which writes what was settled by the time it runs.
/// </remarks>
internal sealed class Settlements : IFrameSource
{
    private readonly AmqpConnection _connection;
    private readonly AmqpChannel _channel;
    private readonly Lock _lock = new();
    private readonly bool _coalesce;
    private List<(ulong Tag, SettleKind Kind)> _singles = [];
    private List<(ulong Tag, SettleKind Kind)> _writing = [];
    private bool[] _settled = new bool[64];
    private ulong _frontier = 1;
    private ulong _ackedUpTo;
    private ulong _lastInOrderAck;
    private bool _awake;
    private bool _afterRead;
    private ValueTask _unfinished;
    private PooledCompletion<bool> _wake;

    public Settlements(AmqpConnection connection, AmqpChannel channel, bool coalesce = true)
    {
        _connection = connection;
        _channel = channel;
        _coalesce = coalesce;
    }

    /// <summary>Frames written (each ack, nack or reject frame), for what coalescing saves.</summary>
    public long FramesWritten { get; private set; }

    /// <summary>Deliveries settled.</summary>
    public long Settled { get; private set; }

    public void Start()
    {
        _wake = PooledCompletion.Rent<bool>();
        // Ends by itself when the channel or connection does.
        _ = LoopAsync();
    }

    public void Add(ulong tag, SettleKind kind)
    {
        PooledCompletion<bool>? wake = null;
        lock (_lock)
        {
            if (tag < _frontier) throw new InvalidOperationException($"delivery {tag} was settled already");
            var mask = (ulong)_settled.Length - 1;
            while (tag - _frontier >= (ulong)_settled.Length) mask = Grow();
            if (!_coalesce || kind != SettleKind.Ack || tag != _frontier) _singles.Add((tag, kind));
            else _lastInOrderAck = tag;
            _settled[tag & mask] = true;
            while (_settled[_frontier & mask])
            {
                _settled[_frontier & mask] = false;
                _frontier++;
            }
            Settled++;
            if (!_awake && !_afterRead)
            {
                if (_connection.TryWriteAfterRead(this)) _afterRead = true;
                else (_awake, wake) = (true, _wake);
            }
        }
        wake?.TrySetResult(true);
    }

    /// <summary>
    /// The read loop is done handing out a read's deliveries: what they settled is written on its thread.
    /// A write that cannot finish there (the turn held, a full pipe) is left to the loop to wait for.
    /// </summary>
    public void WriteAfterRead()
    {
        lock (_lock)
        {
            _afterRead = false;
            if (_awake) return;
            _awake = true;
        }
        var write = FlushAsync();
        if (write.IsCompletedSuccessfully)
        {
            write.GetAwaiter().GetResult();
            lock (_lock)
            {
                // Settled meanwhile on another thread, which left the writing to this call.
                _awake = HasUnwritten;
                if (!_awake) return;
            }
        }
        else
        {
            _unfinished = write;
        }
        _wake.TrySetResult(true);
    }

    // Under _lock: settled and not yet written.
    private bool HasUnwritten => _singles.Count > 0 || _lastInOrderAck > _ackedUpTo;

    /// <summary>Writes what is settled and not yet written, now (a stopping consumer, before its channel closes).</summary>
    public ValueTask FlushAsync() => _connection.Writer.WriteAsync(this);

    private async Task LoopAsync()
    {
        try
        {
            while (true)
            {
                await _wake.Task.ConfigureAwait(false);
                var unfinished = _unfinished;
                _unfinished = default;
                await unfinished.ConfigureAwait(false);
                while (true)
                {
                    await FlushAsync().ConfigureAwait(false);
                    lock (_lock)
                    {
                        if (HasUnwritten) continue;
                        // Asleep: the next settlement wakes this loop through a new completion.
                        _awake = false;
                        _wake = PooledCompletion.Rent<bool>();
                        break;
                    }
                }
            }
        }
        catch (Exception e) when (e is IOException or ObjectDisposedException or InvalidOperationException or AmqpException)
        {
            // The channel or connection is gone: what was not acked is requeued by the broker.
        }
    }

    // In the connection's write turn: the singles first, then the multiple ack that may cover them.
    public void WriteFrames(PipeWriter output)
    {
        ulong ackUpTo = 0;
        lock (_lock)
        {
            (_writing, _singles) = (_singles, _writing);
            // The broker refuses (closing the channel) a multiple ack whose own tag it no longer holds: the
            // tag is the last ack made in order, never one written alone.
            if (_lastInOrderAck > _ackedUpTo)
            {
                ackUpTo = _lastInOrderAck;
                _ackedUpTo = ackUpTo;
            }
        }
        if (_writing.Count == 0 && ackUpTo == 0) return;
        _connection.ThrowIfFailed();
        if (_channel.Failure is { } failure) throw AmqpConnection.Rethrowable(failure);
        foreach (var (tag, kind) in _writing)
        {
            switch (kind)
            {
                case SettleKind.Ack: AmqpFrameWriter.WriteMethod(output, _channel.Number, new BasicAck(tag, false)); break;
                case SettleKind.Nack or SettleKind.NackRequeue: AmqpFrameWriter.WriteMethod(output, _channel.Number, new BasicNack(tag, false, kind == SettleKind.NackRequeue)); break;
                default: AmqpFrameWriter.WriteMethod(output, _channel.Number, new BasicReject(tag, kind == SettleKind.RejectRequeue)); break;
            }
        }
        FramesWritten += _writing.Count;
        _writing.Clear();
        if (ackUpTo != 0)
        {
            AmqpFrameWriter.WriteMethod(output, _channel.Number, new BasicAck(ackUpTo, true));
            FramesWritten++;
        }
    }

    private ulong Grow()
    {
        var grown = new bool[_settled.Length * 2];
        for (var tag = _frontier; tag < _frontier + (ulong)_settled.Length; tag++)
            grown[tag & ((ulong)grown.Length - 1)] = _settled[tag & ((ulong)_settled.Length - 1)];
        _settled = grown;
        return (ulong)grown.Length - 1;
    }
}
