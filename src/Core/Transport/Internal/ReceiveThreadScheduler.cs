using System.IO.Pipelines;

namespace Prewire.Transport.Internal;

/// <summary>
/// The send loop's scheduler on a connection with a receive thread of its own: a flush made on that
/// thread (a read's acks, written once the read is handed out) sends there and then, with a
/// non-blocking call; a flush made anywhere else resumes the send loop as <paramref name="elsewhere"/> does.
/// </summary>
/// <remarks>
/// Sending inline on the receive thread saves the wake-up of a pool worker for every read's acks (a
/// consumer of 256 B bodies: 0.26 context switches a message against 0.06, docs/benchmarks.md). Inline
/// on every thread would not: publishers' flushes gathered on the pool go out in one send each time,
/// and sent one by one they cost publish-memory's D twice the CPU a message.
/// </remarks>
internal sealed class ReceiveThreadScheduler(Thread receiveThread, PipeScheduler elsewhere) : PipeScheduler
{
    public override void Schedule(Action<object?> action, object? state)
    {
        // The thread itself, not its id: ids are reused once a thread ends (the engine took receiving over).
        if (Thread.CurrentThread == receiveThread) action(state);
        else elsewhere.Schedule(action, state);
    }
}
