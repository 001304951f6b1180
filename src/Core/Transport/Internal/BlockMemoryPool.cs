using System.Buffers;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;

namespace Prewire.Transport.Internal;

/// <summary>
/// Fixed-size blocks for the connection pipes, kept for reuse without limit: a connection that has
/// once had its thresholds' worth of data in flight never allocates a buffer again.
/// <see cref="MemoryPool{T}.Shared"/> wraps <see cref="ArrayPool{T}.Shared"/>, whose small per-core
/// caches run dry (and allocate) when a megabyte of 4 KB segments is in flight at once.
/// </summary>
/// <remarks>
/// A block counts its holders: the pipe that rented it, and any delivery whose body lies in it
/// (<see cref="TryRetain"/>). It goes back to the pool when the last one lets go, so the pipe can move
/// past a delivery's frames while its handler still reads the body where the socket put it.
/// </remarks>
internal sealed class BlockMemoryPool : MemoryPool<byte>
{
    public const int BlockSize = 64 * 1024;

    private readonly Stack<Block> _free = new();
    private readonly Lock _freeLock = new();

    public static BlockMemoryPool Instance { get; } = new();

    public override int MaxBufferSize => BlockSize;

    public override IMemoryOwner<byte> Rent(int minBufferSize = -1)
    {
        if (minBufferSize > BlockSize) throw new ArgumentOutOfRangeException(nameof(minBufferSize), minBufferSize, $"blocks are {BlockSize} bytes");
        Block? block;
        lock (_freeLock) _free.TryPop(out block);
        block ??= new Block(this);
        block.Rented();
        return block;
    }

    /// <summary>
    /// Takes one more hold on the block <paramref name="memory"/> lies in, when it is one of this pool's;
    /// <see cref="Block.Release"/> lets go of it.
    /// </summary>
    public static bool TryRetain(ReadOnlyMemory<byte> memory, [System.Diagnostics.CodeAnalysis.NotNullWhen(true)] out Block? block)
    {
        if (!MemoryMarshal.TryGetMemoryManager(memory, out block)) return false;
        block.Retain();
        return true;
    }

    protected override void Dispose(bool disposing)
    {
        // Shared for the process's lifetime; blocks are plain arrays the GC takes if the pool goes.
    }

    private void Return(Block block)
    {
        lock (_freeLock) _free.Push(block);
    }

    /// <summary>One pinned block, back in the pool when its last holder released it.</summary>
    internal sealed class Block(BlockMemoryPool pool) : MemoryManager<byte>
    {
        private readonly byte[] _array = GC.AllocateUninitializedArray<byte>(BlockSize, pinned: true);
        private int _holders;

        public void Retain() => Interlocked.Increment(ref _holders);

        public void Release()
        {
            var left = Interlocked.Decrement(ref _holders);
            if (left == 0) pool.Return(this);
            else if (left < 0) throw new InvalidOperationException("a block was released more often than it was held");
        }

        public override Span<byte> GetSpan() => _array;

        // The array lives on the pinned object heap: its address never changes.
        public override unsafe MemoryHandle Pin(int elementIndex = 0) => new(Unsafe.AsPointer(ref _array[elementIndex]));

        public override void Unpin()
        {
        }

        internal void Rented() => Volatile.Write(ref _holders, 1);

        protected override bool TryGetArray(out ArraySegment<byte> segment)
        {
            segment = _array;
            return true;
        }

        // The pipe's IMemoryOwner.Dispose: its hold ends.
        protected override void Dispose(bool disposing) => Release();
    }
}
