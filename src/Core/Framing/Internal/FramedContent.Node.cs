using System.Buffers;

namespace Prewire.Framing.Internal;

internal sealed partial class FramedContent
{
    /// <summary>A link of the sequence; kept and relinked from one publish to the next.</summary>
    private sealed class Node : ReadOnlySequenceSegment<byte>
    {
        public void Set(ReadOnlyMemory<byte> memory, long runningIndex)
        {
            Memory = memory;
            RunningIndex = runningIndex;
            Next = null;
        }

        public void Link(Node next) => Next = next;
    }
}
