using System.Buffers;
using System.Net.Sockets;
using System.Runtime.InteropServices;

namespace Prewire.Transport.Internal;

/// <summary>
/// <c>sendmsg(2)</c> called directly with an iovec per segment, for more segments than the runtime
/// describes without allocating (<see cref="SocketSender.MaxSegments"/>): a 1 MiB publish at frame-max
/// 128 KiB is 20 segments, one system call here against three. Only ever an attempt: whatever it does
/// not send (the socket full, an error, not Linux) goes the runtime's way, which waits and reports.
/// </summary>
internal static unsafe class LinuxSendMsg
{
    /// <summary>Segments per call; Linux takes up to 1,024 (IOV_MAX).</summary>
    public const int MaxSegments = 64;

    private const int MsgDontWait = 0x40;
    private const int MsgNoSignal = 0x4000;

    // Looked up rather than imported by name: "libc" is not a file name glibc systems are sure to have,
    // and where the lookup fails (musl, not Linux, 32-bit layouts) this path is simply not taken.
    private static readonly delegate* unmanaged<nint, MessageHeader*, int, nint> _sendmsg = Resolve();

    public static bool IsAvailable => _sendmsg != null;

    /// <summary>Sends what the socket takes now of up to <see cref="MaxSegments"/> segments of <paramref name="buffer"/>; 0 when it took nothing.</summary>
    /// <exception cref="ObjectDisposedException">The socket was closed.</exception>
    public static int TrySend(Socket socket, in ReadOnlySequence<byte> buffer, MemoryHandle[] pins)
    {
        var vectors = stackalloc IoVector[MaxSegments];
        var count = 0;
        var handle = socket.SafeHandle;
        var added = false;
        try
        {
            foreach (var memory in buffer)
            {
                if (memory.IsEmpty) continue;
                pins[count] = memory.Pin();
                vectors[count] = new IoVector { Base = pins[count].Pointer, Length = (nuint)memory.Length };
                if (++count == MaxSegments) break;
            }
            // Held across the call, so a socket closed meanwhile cannot have its descriptor reused under it.
            handle.DangerousAddRef(ref added);
            var header = new MessageHeader { Vectors = vectors, VectorCount = (nuint)count };
            var sent = _sendmsg(handle.DangerousGetHandle(), &header, MsgDontWait | MsgNoSignal);
            return sent > 0 ? (int)sent : 0;
        }
        finally
        {
            if (added) handle.DangerousRelease();
            for (var i = 0; i < count; i++) pins[i].Dispose();
        }
    }

    private static delegate* unmanaged<nint, MessageHeader*, int, nint> Resolve()
    {
        if (!OperatingSystem.IsLinux() || !Environment.Is64BitProcess) return null;
        if (!NativeLibrary.TryLoad("libc.so.6", out var libc) || !NativeLibrary.TryGetExport(libc, "sendmsg", out var sendmsg)) return null;
        return (delegate* unmanaged<nint, MessageHeader*, int, nint>)sendmsg;
    }

    // struct iovec and struct msghdr as 64-bit Linux lays them out.
    [StructLayout(LayoutKind.Sequential)]
    private struct IoVector
    {
        public void* Base;
        public nuint Length;
    }

    [StructLayout(LayoutKind.Sequential)]
    private struct MessageHeader
    {
        public void* Name;
        public uint NameLength;
        public IoVector* Vectors;
        public nuint VectorCount;
        public void* Control;
        public nuint ControlLength;
        public int Flags;
    }
}
