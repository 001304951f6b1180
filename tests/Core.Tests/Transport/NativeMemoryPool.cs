using System.Buffers;
using System.Runtime.InteropServices;

namespace Prewire.Transport;

/// <summary>A pool of native (non-array) blocks, for the transport paths that cannot use an array segment.</summary>
internal sealed class NativeMemoryPool : MemoryPool<byte>
{
    private const int BlockSize = 16 * 1024;

    public override int MaxBufferSize => BlockSize;

    public override IMemoryOwner<byte> Rent(int minBufferSize = -1) => new Block();

    protected override void Dispose(bool disposing)
    {
    }

    private sealed unsafe class Block : MemoryManager<byte>
    {
        private void* _memory = NativeMemory.Alloc(BlockSize);

        public override Span<byte> GetSpan() => new(_memory, BlockSize);

        public override MemoryHandle Pin(int elementIndex = 0) => new((byte*)_memory + elementIndex);

        public override void Unpin()
        {
        }

        protected override void Dispose(bool disposing)
        {
            NativeMemory.Free(_memory);
            _memory = null;
        }
    }
}
