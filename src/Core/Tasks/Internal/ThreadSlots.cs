namespace Prewire.Tasks.Internal;

/// <summary>
/// Every <see cref="ObjectPool{T}"/>'s item for the current thread, in one array per thread. A
/// <c>[ThreadStatic]</c> reference per pool type would cost a thread its storage on its first touch
/// of each type (32 B, 216 B for the first): a pool thread resuming its first continuation of a kind
/// long after start-up, which a consumer's zero-byte test saw one run in ten. One array is touched
/// once, by the first pooled operation a thread runs.
/// </summary>
internal static class ThreadSlots
{
    /// <summary>Pool types with a slot per thread (Core has about 25); later types use their shared array only.</summary>
    public const int Capacity = 64;

    [ThreadStatic]
    private static object?[]? _slots;

    private static int _types;

    /// <summary>The current thread's slots.</summary>
    public static object?[] Current => _slots ??= new object?[Capacity];

    /// <summary>A slot index for a new pool type, <see cref="Capacity"/> or more when none is left.</summary>
    public static int NewType() => Interlocked.Increment(ref _types) - 1;
}
