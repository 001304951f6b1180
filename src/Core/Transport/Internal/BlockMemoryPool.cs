using System.Buffers;

namespace Prewire.Transport.Internal;

/// <summary>
/// Fixed-size blocks for the connection pipes, kept for reuse without limit: a connection that has
/// once had its thresholds' worth of data in flight never allocates a buffer again.
/// <see cref="MemoryPool{T}.Shared"/> wraps <see cref="ArrayPool{T}.Shared"/>, whose small per-core
/// caches run dry (and allocate) when a megabyte of 4 KB segments is in flight at once.
/// </summary>
internal sealed class BlockMemoryPool : MemoryPool<byte>
{
    public const int BlockSize = 64 * 1024;

    private readonly Stack<Block> _free = new();

    public static BlockMemoryPool Instance { get; } = new();

    public override int MaxBufferSize => BlockSize;

    public override IMemoryOwner<byte> Rent(int minBufferSize = -1)
    {
        if (minBufferSize > BlockSize) throw new ArgumentOutOfRangeException(nameof(minBufferSize), minBufferSize, $"blocks are {BlockSize} bytes");
        lock (_free)
        {
            if (_free.TryPop(out var block)) return block;
        }
        return new Block(this);
    }

    protected override void Dispose(bool disposing)
    {
        // Shared for the process's lifetime; blocks are plain arrays the GC takes if the pool goes.
    }

    private void Return(Block block)
    {
        lock (_free) _free.Push(block);
    }

    private sealed class Block(BlockMemoryPool pool) : IMemoryOwner<byte>
    {
        private readonly byte[] _array = GC.AllocateUninitializedArray<byte>(BlockSize, pinned: true);

        public Memory<byte> Memory => _array;

        public void Dispose() => pool.Return(this);
    }
}
