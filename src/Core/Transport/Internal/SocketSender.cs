using System.Buffers;
using System.Net.Sockets;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Threading.Tasks.Sources;

namespace Prewire.Transport.Internal;

/// <summary>
/// One reusable send operation, awaited as a <see cref="ValueTask{TResult}"/>. A multi-segment buffer
/// goes out in vectored calls (sendmsg with an iovec per segment), up to <see cref="MaxSegments"/>
/// pipe blocks per system call instead of one. <see cref="Socket.SendAsync(IList{ArraySegment{byte}}, SocketFlags)"/> does the same but
/// allocates a task per call.
/// </summary>
internal sealed class SocketSender : SocketAsyncEventArgs, IValueTaskSource<int>
{
    /// <summary>
    /// Segments per call. The runtime pins and describes up to 8 buffers on the stack; more and it
    /// allocates two arrays per call (SocketPal.Unix's IovStackThreshold), so 8 blocks it is.
    /// </summary>
    public const int MaxSegments = 8;

    private readonly List<ArraySegment<byte>> _segments = new(MaxSegments);
    private ManualResetValueTaskSourceCore<int> _source;
    private Action? _engineTakesOver;
    private MemoryHandle[]? _pins;

    /// <param name="engineTakesOver">
    /// Given, every send is tried with <see cref="LinuxSendMsg"/> first, not only a long one, so a socket
    /// the runtime's engine does not watch stays unwatched; called once, before the first send that must
    /// wait for room goes the engine's way (which watches the socket from then on).
    /// </param>
    public SocketSender(Action? engineTakesOver = null)
        : base(unsafeSuppressExecutionContextFlow: true)
    {
        _engineTakesOver = LinuxSendMsg.IsAvailable ? engineTakesOver : null;
    }

    /// <summary>Sends as much of <paramref name="buffer"/> as the socket takes in one operation; returns the byte count.</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    public ValueTask<int> SendAsync(Socket socket, in ReadOnlySequence<byte> buffer)
    {
        // Past 8 segments (or always, direct), one direct call while the socket takes it; what it leaves goes the usual way.
        var direct = _engineTakesOver is not null;
        if (direct || LinuxSendMsg.IsAvailable && HasMoreSegmentsThan(buffer, MaxSegments))
        {
            var sent = LinuxSendMsg.TrySend(socket, buffer, _pins ??= new MemoryHandle[LinuxSendMsg.MaxSegments]);
            if (sent > 0) return new ValueTask<int>(sent);
        }
        if (direct)
        {
            _engineTakesOver!();
            _engineTakesOver = null;
        }
        if (buffer.IsSingleSegment || !TrySetSegments(buffer))
        {
            if (BufferList is not null) BufferList = null;
            SetBuffer(MemoryMarshal.AsMemory(buffer.First));
        }
        _source.Reset();
        if (socket.SendAsync(this)) return new ValueTask<int>(this, _source.Version);
        return SocketError == SocketError.Success
            ? new ValueTask<int>(BytesTransferred)
            : ValueTask.FromException<int>(new SocketException((int)SocketError));
    }

    private static bool HasMoreSegmentsThan(in ReadOnlySequence<byte> buffer, int count)
    {
        var position = buffer.Start;
        while (buffer.TryGet(ref position, out _))
        {
            if (--count < 0) return true;
        }
        return false;
    }

    private bool TrySetSegments(in ReadOnlySequence<byte> buffer)
    {
        _segments.Clear();
        foreach (var memory in buffer)
        {
            // Blocks of another pool may not be arrays: those go out a segment at a time.
            if (!MemoryMarshal.TryGetArray(memory, out var segment)) return false;
            _segments.Add(segment);
            if (_segments.Count == MaxSegments) break;
        }
        SetBuffer(Memory<byte>.Empty);
        BufferList = _segments;
        return true;
    }

    protected override void OnCompleted(SocketAsyncEventArgs e)
    {
        if (SocketError == SocketError.Success) _source.SetResult(BytesTransferred);
        else _source.SetException(new SocketException((int)SocketError));
    }

    int IValueTaskSource<int>.GetResult(short token) => _source.GetResult(token);

    ValueTaskSourceStatus IValueTaskSource<int>.GetStatus(short token) => _source.GetStatus(token);

    void IValueTaskSource<int>.OnCompleted(Action<object?> continuation, object? state, short token, ValueTaskSourceOnCompletedFlags flags) =>
        _source.OnCompleted(continuation, state, token, flags);
}
