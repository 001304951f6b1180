using System.Buffers;

namespace Prewire.Transport;

/// <summary>Options of the socket connection under Prewire's AMQP client (<see cref="Amqp.AmqpConnectionOptions.Transport"/>).</summary>
public sealed class SocketConnectionOptions
{
    /// <summary>Bytes received but not yet read by the application before the socket stops reading.</summary>
    /// <remarks>Defaults to 1 MiB. Reading resumes when the backlog falls under half of it.</remarks>
    public long MaxReadBufferSize { get; set; } = 1024 * 1024;

    /// <summary>
    /// Bytes written by the application but not yet sent before <c>FlushAsync</c> waits: the
    /// back-pressure that keeps what is in flight bounded however fast publishers write.
    /// </summary>
    /// <remarks>Defaults to 256 KiB. Writers resume when the backlog falls under half of it.</remarks>
    public long MaxWriteBufferSize { get; set; } = 256 * 1024;

    /// <summary>Where the pipes take their buffers from.</summary>
    /// <remarks>
    /// Defaults to a process-wide pool of pinned 64 KiB blocks kept for reuse, so a busy connection
    /// stops allocating buffers once warm (<see cref="MemoryPool{T}.Shared"/> allocates when its small
    /// caches run dry under a megabyte in flight). 64 KiB rather than 16: a send call takes up to 8
    /// blocks, so what is written through the pipe goes out in a quarter of the system calls (1 MiB
    /// publishes, when they still went through it: 0.85 of the CPU per message, docs/benchmarks.md).
    /// </remarks>
    public MemoryPool<byte> MemoryPool { get; set; } = Internal.BlockMemoryPool.Instance;

    /// <summary>Disables Nagle's algorithm, so small frames (acks, heartbeats) go out at once.</summary>
    /// <remarks>Defaults to <see langword="true"/>.</remarks>
    public bool NoDelay { get; set; } = true;

    /// <summary>How long connecting waits for the peer to accept and, over TLS, to finish the handshake.</summary>
    /// <remarks>Defaults to 10 seconds. <see cref="Timeout.InfiniteTimeSpan"/>: until the caller cancels.</remarks>
    public TimeSpan ConnectTimeout { get; set; } = TimeSpan.FromSeconds(10);

    /// <summary>
    /// Runs the remaining pipe continuations inline on the thread that completed the I/O instead of
    /// dispatching them to the thread pool: the send loop on the thread that flushed, and the code awaiting
    /// <c>FlushAsync</c> on the send loop's. (What reads the input always runs on the receiving thread: it
    /// parses frames and hands them off.) Unsafe, hence the name: if code resumed this way blocks (a
    /// lock, a synchronous wait, slow work) it stalls this connection's I/O, and with
    /// <c>DOTNET_SYSTEM_NET_SOCKETS_INLINE_COMPLETIONS=1</c> the socket engine's thread itself, for every
    /// connection. It also sends each flush at once rather than letting concurrent writers' flushes gather
    /// into one send: publishes awaiting confirms cost more CPU each with it (docs/benchmarks.md).
    /// </summary>
    /// <remarks>Defaults to <see langword="false"/> (thread pool).</remarks>
    public bool UnsafePreferInlineScheduling { get; set; }

    /// <summary>
    /// Receives on a thread of the connection's own, blocked in <c>recv</c>, and sends with direct
    /// non-blocking calls, so the runtime's socket engine never watches the socket: a read wakes one
    /// thread, not the engine's and then a pool worker's, and nothing wakes for events nobody waits on
    /// (13 to 15 % less CPU a message consuming 256 B bodies or publishing with confirms, docs/benchmarks.md).
    /// A send that finds the socket full hands the socket to the engine, which waits for room and keeps
    /// it from then on. Plain connections on 64-bit Linux only: amqps and other systems always use the engine.
    /// </summary>
    /// <remarks>Defaults to <see langword="true"/>: one thread a connection, mostly asleep.</remarks>
    public bool ReceiveOnOwnThread { get; set; } = true;
}
