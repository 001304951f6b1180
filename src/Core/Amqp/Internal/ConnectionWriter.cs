using System.Buffers;
using System.IO.Pipelines;
using System.Runtime.CompilerServices;
using Prewire.Tasks;
using Prewire.Transport.Internal;

namespace Prewire.Amqp.Internal;

/// <summary>
/// The only way frames reach a connection's socket: one writer at a time (a turn), and one flush
/// policy. A turn writes its frames into the pipe, then flushes unless another turn is queued behind
/// it and less than <see cref="FlushThreshold"/> is unflushed: the last turn of a burst flushes for all
/// of them, so 16 publishers' frames and a read's acks go out in one send, not one each.
/// </summary>
/// <remarks>
/// Invariant: when no turn is held or queued, nothing is left unflushed. A turn whose writing throws
/// (its channel is closed) still flushes what the turns before it left, when it is the last.
/// </remarks>
internal sealed class ConnectionWriter(AmqpConnection connection, SocketConnection transport, long flushThreshold)
{
    private readonly AsyncLock _turn = new();
    private readonly PipeWriter _output = transport.Output;
    private long _flushes;

    /// <summary>Half the write buffer: a body larger than it is sent directly (<see cref="SendDirectAsync"/>), not through the pipe.</summary>
    public long FlushThreshold { get; } = flushThreshold;

    /// <summary>
    /// How many flushes have started. A turn that wrote while it read <c>n</c> here is on its way to the
    /// socket once this has moved past <c>n</c>: a flush hands the pipe's bytes to the send loop as it starts.
    /// </summary>
    public long Flushes => Volatile.Read(ref _flushes);

    /// <summary>Takes a turn, writes <paramref name="frames"/> (which may throw to write nothing), and flushes by the policy.</summary>
    [AsyncMethodBuilder(typeof(PooledValueTaskMethodBuilder))]
    public async ValueTask WriteAsync(IFrameSource frames, CancellationToken cancellationToken = default)
    {
        await _turn.WaitAsync().ConfigureAwait(false);
        try
        {
            try
            {
                frames.WriteFrames(_output);
            }
            catch
            {
                if (!_turn.HasWaiters && _output.UnflushedBytes > 0) Check(await FlushPipeAsync(CancellationToken.None).ConfigureAwait(false));
                throw;
            }
            // Even with nothing unflushed: a pipe whose send loop ended drops what is written, and only a flush says so.
            if (_turn.HasWaiters && _output.UnflushedBytes < FlushThreshold) return;
            Check(await FlushPipeAsync(cancellationToken).ConfigureAwait(false));
        }
        finally
        {
            _turn.Release();
        }
    }

    /// <summary>
    /// <see cref="WriteAsync"/> for the connection's goodbye: false, and nothing written, when the turn
    /// does not come within <paramref name="limit"/> (a writer stuck behind back-pressure from a blocked
    /// broker); the late turn is handed back unused.
    /// </summary>
    public async Task<bool> TryWriteAsync(IFrameSource frames, TimeSpan limit, CancellationToken cancellationToken)
    {
        var turn = _turn.WaitAsync().AsTask();
        if (await Task.WhenAny(turn, Task.Delay(limit, cancellationToken)).ConfigureAwait(false) != turn)
        {
            _ = turn.ContinueWith(static (_, state) => ((AsyncLock)state!).Release(), _turn, CancellationToken.None, TaskContinuationOptions.ExecuteSynchronously, TaskScheduler.Default);
            return false;
        }
        try
        {
            frames.WriteFrames(_output);
            Check(await FlushPipeAsync(cancellationToken).ConfigureAwait(false));
            return true;
        }
        finally
        {
            _turn.Release();
        }
    }

    /// <summary>Takes a turn to flush whatever earlier turns left in the pipe, now (before a direct send that must not overtake it).</summary>
    [AsyncMethodBuilder(typeof(PooledValueTaskMethodBuilder))]
    public async ValueTask FlushAsync(CancellationToken cancellationToken)
    {
        await _turn.WaitAsync().ConfigureAwait(false);
        try
        {
            if (_output.UnflushedBytes > 0) Check(await FlushPipeAsync(cancellationToken).ConfigureAwait(false));
        }
        finally
        {
            _turn.Release();
        }
    }

    /// <summary>Sends <paramref name="frames"/> from where they are, between other turns' flushes (a large body, <see cref="FlushThreshold"/>).</summary>
    public ValueTask SendDirectAsync(DirectSend send, in ReadOnlySequence<byte> frames, List<long> partEnds) =>
        transport.SendDirectAsync(send, frames, partEnds);

    // Only a turn's holder counts, so a plain increment; read without a turn by Flushes.
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
}
