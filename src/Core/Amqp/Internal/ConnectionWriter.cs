using System.Buffers;
using System.IO.Pipelines;
using System.Runtime.CompilerServices;
using System.Runtime.ExceptionServices;
using Prewire.Tasks;
using Prewire.Transport.Internal;

namespace Prewire.Amqp.Internal;

/// <summary>
/// The only way frames reach a connection's socket: one writer at a time (the turn), and one flush
/// policy. A writer that finds the turn free takes it, writes its frames, then the frames of every
/// write queued behind it meanwhile, and flushes once for all of them (a round); a writer that finds
/// the turn held queues its frames and waits for the holder to write and flush them. So 16 publishers'
/// frames and a read's acks go out in one send, and a write that meets no one completes on the
/// caller's thread without suspending.
/// </summary>
/// <remarks>
/// Invariant: when the turn is free, nothing is queued and nothing is left unflushed. A write whose
/// frames throw (its channel is closed) fails alone; the round's flush still happens. Handing the turn
/// from writer to writer instead (a lock passed to the next in line) made every write behind another
/// one suspend and resume through the thread pool: publish-memory's D paid a hop a publish, ~2,000 of
/// its ~6,200 instructions a message (callgrind, docs/benchmarks.md).
/// </remarks>
internal sealed class ConnectionWriter(AmqpConnection connection, SocketConnection transport, long flushThreshold) : IThreadPoolWorkItem
{
    // A writer that took the turn writes this many rounds at most before the rest is left to a pool
    // thread: its own write completes only when it gives the turn up, and writers keep coming.
    private const int RoundsOnCallersThread = 4;

    private readonly Lock _gate = new();
    private readonly Queue<QueuedWrite> _queued = new();
    private readonly List<QueuedWrite> _round = [];
    private readonly PipeWriter _output = transport.Output;
    private bool _held;
    private long _flushes;
    private ValueTask _drain;
    private Action? _endDrain;

    /// <summary>Half the write buffer: a body larger than it is sent directly (<see cref="SendDirectAsync"/>), not through the pipe.</summary>
    public long FlushThreshold { get; } = flushThreshold;

    /// <summary>
    /// How many flushes have started. A write made while this read <c>n</c> is on its way to the
    /// socket once this has moved past <c>n</c>: a flush hands the pipe's bytes to the send loop as it starts.
    /// </summary>
    public long Flushes => Volatile.Read(ref _flushes);

    /// <summary>
    /// Writes <paramref name="frames"/> (which may throw to write nothing) in the turn, and flushes;
    /// completes once they are flushed. <paramref name="cancellationToken"/> stops the wait for a full
    /// pipe when this call holds the turn; frames written are not taken back.
    /// </summary>
    public ValueTask WriteAsync(IFrameSource frames, CancellationToken cancellationToken = default)
    {
        lock (_gate)
        {
            if (_held)
            {
                // Not cancellable: the holder may be writing the frames already, and a write is not taken back.
                var done = PooledCompletion.Rent<bool>(cancellationToken: CancellationToken.None);
                _queued.Enqueue(new(frames, done));
                return done.AsValueTask();
            }
            _held = true;
        }
        return HoldAsync(frames, cancellationToken);
    }

    /// <summary>
    /// <see cref="WriteAsync"/> for the connection's goodbye: false, and nothing written, when the turn
    /// does not come within <paramref name="limit"/> (a writer stuck behind back-pressure from a blocked
    /// broker); the late write is then withdrawn.
    /// </summary>
    public async Task<bool> TryWriteAsync(IFrameSource frames, TimeSpan limit, CancellationToken cancellationToken)
    {
        var late = new Withdrawable(frames);
        var write = WriteAsync(late, cancellationToken).AsTask();
        if (await Task.WhenAny(write, Task.Delay(limit, cancellationToken)).ConfigureAwait(false) != write && late.Withdraw()) return false;
        await write.ConfigureAwait(false);
        return true;
    }

    /// <summary>Flushes whatever earlier writes left in the pipe, in the turn (before a direct send that must not overtake it).</summary>
    public ValueTask FlushAsync(CancellationToken cancellationToken) => WriteAsync(NoFrames.Instance, cancellationToken);

    /// <summary>Sends <paramref name="frames"/> from where they are, between other turns' flushes (a large body, <see cref="FlushThreshold"/>).</summary>
    public ValueTask SendDirectAsync(DirectSend send, in ReadOnlySequence<byte> frames, List<long> partEnds) =>
        transport.SendDirectAsync(send, frames, partEnds);

    /// <summary>
    /// The turn is the caller's: its frames first, then rounds of what was queued, each flushed; then the
    /// turn is freed or left to a pool thread. The caller's write fails with its frames' or its flush's
    /// failure; a pool thread's (<paramref name="own"/> null) never fails: each failure is the queued writes'.
    /// </summary>
    [AsyncMethodBuilder(typeof(PooledValueTaskMethodBuilder))]
    private async ValueTask HoldAsync(IFrameSource? own, CancellationToken cancellationToken)
    {
        var failure = own is null ? null : TryWrite(own);
        for (var round = 1; ; round++)
        {
            WriteQueued();
            Exception? flushFailure = null;
            try
            {
                Check(await FlushPipeAsync(round == 1 ? cancellationToken : CancellationToken.None).ConfigureAwait(false));
            }
            catch (Exception e)
            {
                flushFailure = e;
            }
            if (round == 1 && own is not null) failure ??= flushFailure;
            // The caller's cancelled wait for a full pipe is its own: the others' frames are in the pipe.
            CompleteRound(flushFailure is OperationCanceledException ? null : flushFailure);
            if (!KeepTurn(round, onPool: own is null)) break;
        }
        if (failure is not null) ExceptionDispatchInfo.Throw(failure);
    }

    private Exception? TryWrite(IFrameSource frames)
    {
        try
        {
            frames.WriteFrames(_output);
            return null;
        }
        catch (Exception e)
        {
            return e;
        }
    }

    // The queued writes, in the order they came; one whose frames throw fails now and leaves the round.
    private void WriteQueued()
    {
        lock (_gate)
        {
            while (_queued.TryDequeue(out var write)) _round.Add(write);
        }
        for (var i = 0; i < _round.Count; i++)
        {
            if (TryWrite(_round[i].Frames) is not { } failure) continue;
            _round[i].Done.TrySetException(failure);
            _round[i] = default;
        }
    }

    private void CompleteRound(Exception? failure)
    {
        foreach (var write in _round)
        {
            if (write.Frames is null) continue;
            if (failure is null) write.Done.TrySetResult(true);
            else write.Done.TrySetException(failure);
        }
        _round.Clear();
    }

    // True: write another round on this thread. False: the turn is free, or left to a pool thread. A pool
    // thread's rounds end with the turn still held, freed or passed on by AfterRounds once their ValueTask
    // is observed: no other holder can start, suspend and take _drain before the last one's end read it.
    private bool KeepTurn(int round, bool onPool)
    {
        lock (_gate)
        {
            if (_queued.Count > 0 && round < RoundsOnCallersThread) return true;
            if (onPool) return false;
            if (_queued.Count == 0)
            {
                _held = false;
                return false;
            }
        }
        ThreadPool.UnsafeQueueUserWorkItem(this, preferLocal: false);
        return false;
    }

    // A pool thread holding the turn: the rounds left, its ValueTask observed so its box goes back to the
    // pool, then the turn freed or passed on. One such thread at a time, so _drain is its own.
    void IThreadPoolWorkItem.Execute()
    {
        var drain = HoldAsync(own: null, CancellationToken.None);
        if (!drain.IsCompleted)
        {
            _drain = drain;
            drain.ConfigureAwait(false).GetAwaiter().UnsafeOnCompleted(_endDrain ??= EndDrain);
            return;
        }
        drain.GetAwaiter().GetResult();
        AfterRounds();
    }

    private void EndDrain()
    {
        _drain.GetAwaiter().GetResult();
        AfterRounds();
    }

    private void AfterRounds()
    {
        lock (_gate)
        {
            if (_queued.Count == 0)
            {
                _held = false;
                return;
            }
        }
        ThreadPool.UnsafeQueueUserWorkItem(this, preferLocal: false);
    }

    // Only the turn's holder counts, so a plain increment; read without the turn by Flushes.
    private ValueTask<FlushResult> FlushPipeAsync(CancellationToken cancellationToken)
    {
        Volatile.Write(ref _flushes, _flushes + 1);
        return _output.FlushAsync(cancellationToken);
    }

    // The reader completed: the socket is gone, and the frames with it; say why if the connection knows.
    private void Check(FlushResult result)
    {
        if (result.IsCompleted) connection.ThrowIfFailed();
    }

    private readonly record struct QueuedWrite(IFrameSource Frames, PooledCompletion<bool> Done);

    private sealed class NoFrames : IFrameSource
    {
        public static NoFrames Instance { get; } = new();

        public void WriteFrames(PipeWriter output)
        {
        }
    }

    // Frames that write nothing once withdrawn; withdrawing fails once they are being written.
    private sealed class Withdrawable(IFrameSource frames) : IFrameSource
    {
        private int _state; // 0 queued, 1 written, 2 withdrawn

        public bool Withdraw() => Interlocked.CompareExchange(ref _state, 2, 0) == 0;

        public void WriteFrames(PipeWriter output)
        {
            if (Interlocked.CompareExchange(ref _state, 1, 0) == 0) frames.WriteFrames(output);
        }
    }
}
