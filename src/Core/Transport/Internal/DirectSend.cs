using System.Buffers;
using System.Threading.Tasks.Sources;
using Prewire.Tasks.Internal;

namespace Prewire.Transport.Internal;

/// <summary>
/// Bytes that go from their owner's memory straight to the socket, bypassing the output pipe: the
/// connection's send loop sends them a part at a time, each part after whatever was flushed to the
/// pipe before it, and completes the send when the last part is out. Reusable: one send at a time.
/// </summary>
/// <remarks>
/// Parts exist so other writers' frames can go out between them; a part must end where the peer may
/// see something else next (for AMQP, after a frame's end octet). The owner's awaiter resumes on the
/// thread pool, never on the send loop; an owner that does not await the send can act in <see cref="Sent"/>.
/// The hop is this object as the pool's work item: the core would queue the awaiter of a
/// <see cref="Tasks.PooledValueTaskMethodBuilder"/> method in a new one, 32 B a send.
/// </remarks>
internal class DirectSend : IValueTaskSource, IThreadPoolWorkItem
{
    // Asynchronous for awaiters that flow a context, which the handoff leaves to the core.
    private ManualResetValueTaskSourceCore<bool> _completion = new() { RunContinuationsAsynchronously = true };
    private ContinuationHandoff _handoff;
    private ReadOnlySequence<byte> _data;
    private List<long> _partEnds = [];
    private int _nextPart;
    private long _sent;

    /// <summary>
    /// Readies a send of <paramref name="data"/>, to be cut after each offset in <paramref name="partEnds"/>
    /// (ascending); both must stay untouched until it completes.
    /// </summary>
    public ValueTask Prepare(in ReadOnlySequence<byte> data, List<long> partEnds)
    {
        _data = data;
        _partEnds = partEnds;
        _nextPart = 0;
        _sent = 0;
        _completion.Reset();
        _handoff.Reset();
        return new ValueTask(this, _completion.Version);
    }

    public bool IsDone => _sent == _data.Length;

    /// <summary>The next part to send; the send loop calls it once per part, in order.</summary>
    public ReadOnlySequence<byte> TakePart()
    {
        var end = _nextPart < _partEnds.Count ? _partEnds[_nextPart++] : _data.Length;
        var part = _data.Slice(_sent, end - _sent);
        _sent = end;
        return part;
    }

    public void Complete(Exception? error)
    {
        _data = default;
        _handoff.Complete(ref _completion, true, error, queue: this);
        Sent(error);
    }

    /// <summary>
    /// Called on the send loop once the loop is done with the bytes (sent, or <paramref name="error"/>),
    /// last: this object may be prepared again from here on. Must only hand off, never block.
    /// </summary>
    protected virtual void Sent(Exception? error)
    {
    }

    void IValueTaskSource.GetResult(short token) => _completion.GetResult(token);

    ValueTaskSourceStatus IValueTaskSource.GetStatus(short token) => _completion.GetStatus(token);

    void IValueTaskSource.OnCompleted(Action<object?> continuation, object? state, short token, ValueTaskSourceOnCompletedFlags flags) =>
        _handoff.OnCompleted(ref _completion, continuation, state, token, flags, this);

    void IThreadPoolWorkItem.Execute() => _handoff.RunHanded();
}
