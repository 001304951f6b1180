using System.Buffers;
using System.Threading.Tasks.Sources;

namespace Prewire.Transport.Internal;

/// <summary>
/// Bytes that go from their owner's memory straight to the socket, bypassing the output pipe: the
/// connection's send loop sends them a part at a time, each part after whatever was flushed to the
/// pipe before it, and completes the send when the last part is out. Reusable: one send at a time.
/// </summary>
/// <remarks>
/// Parts exist so other writers' frames can go out between them; a part must end where the peer may
/// see something else next (for AMQP, after a frame's end octet).
/// </remarks>
internal sealed class DirectSend : IValueTaskSource
{
    private ManualResetValueTaskSourceCore<bool> _completion;
    private ReadOnlySequence<byte> _data;
    private List<long> _partEnds = [];
    private int _nextPart;
    private long _sent;
    private bool _resumeInline;

    /// <summary>
    /// Readies a send of <paramref name="data"/>, to be cut after each offset in <paramref name="partEnds"/>
    /// (ascending); both must stay untouched until it completes. With <paramref name="resumeInline"/> a
    /// successful send resumes its awaiter on the send loop, saving a thread-pool hop: for an awaiter
    /// that only hands off and waits again.
    /// </summary>
    public ValueTask Prepare(in ReadOnlySequence<byte> data, List<long> partEnds, bool resumeInline)
    {
        _resumeInline = resumeInline;
        _data = data;
        _partEnds = partEnds;
        _nextPart = 0;
        _sent = 0;
        _completion.Reset();
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
        // A failure resumes on the thread pool: it may go anywhere, the loop's end included.
        _completion.RunContinuationsAsynchronously = error is not null || !_resumeInline;
        if (error is null) _completion.SetResult(true);
        else _completion.SetException(error);
    }

    void IValueTaskSource.GetResult(short token) => _completion.GetResult(token);

    ValueTaskSourceStatus IValueTaskSource.GetStatus(short token) => _completion.GetStatus(token);

    void IValueTaskSource.OnCompleted(Action<object?> continuation, object? state, short token, ValueTaskSourceOnCompletedFlags flags) =>
        _completion.OnCompleted(continuation, state, token, flags);
}
