using System.Diagnostics.CodeAnalysis;
using System.Runtime.CompilerServices;
using Prewire.Tasks.Internal;

namespace Prewire.Tasks;

/// <summary>
/// A small lock-free pool per type: one item per thread first (no interlocked operation on the
/// common rent-complete-await-return cycle), then a shared array. Never blocks, never grows:
/// when it is empty a caller allocates, when it is full a returned item is left to the GC.
/// </summary>
/// <remarks>
/// Holds one item per thread and 64 (16 per core on bigger machines) shared: sized for as many
/// operations in flight at once as a server has requests. Reset an item before returning it; an item
/// returned is the pool's, and whoever kept a reference to it must not use it.
/// </remarks>
/// <typeparam name="T">The pooled type; each type has its own pool.</typeparam>
[SuppressMessage("Design", "CA1000:Do not declare static members on generic types", Justification = "The type argument is the pool: static fields per closed type, no lookup.")]
public static class ObjectPool<T>
    where T : class
{
    // This type's index in each thread's slots (Internal/ThreadSlots).
    private static readonly int _slot = ThreadSlots.NewType();

    // Sized for many operations in flight at once (a queue of lock waiters, a window of confirms):
    // a return that finds no free slot is dropped and the next rent allocates.
    private static readonly T?[] _shared = new T?[Math.Max(64, Environment.ProcessorCount * 16)];

    /// <summary>An item from the pool, or <see langword="null"/> when it is empty (then make one).</summary>
    public static T? TryRent()
    {
        T? item;
        if (_slot < ThreadSlots.Capacity)
        {
            var slots = ThreadSlots.Current;
            item = Unsafe.As<T?>(slots[_slot]);
            if (item is not null)
            {
                slots[_slot] = null;
                return item;
            }
        }
        var shared = _shared;
        for (var i = 0; i < shared.Length; i++)
        {
            item = Volatile.Read(ref shared[i]);
            if (item is not null && Interlocked.CompareExchange(ref shared[i], null, item) == item) return item;
        }
        return null;
    }

    /// <summary>Gives <paramref name="item"/> to the pool, or to the GC when the pool is full.</summary>
    public static void Return(T item)
    {
        ArgumentNullException.ThrowIfNull(item);
        if (_slot < ThreadSlots.Capacity)
        {
            var slots = ThreadSlots.Current;
            if (slots[_slot] is null)
            {
                slots[_slot] = item;
                return;
            }
        }
        var shared = _shared;
        for (var i = 0; i < shared.Length; i++)
        {
            if (Volatile.Read(ref shared[i]) is null && Interlocked.CompareExchange(ref shared[i], item, null) is null) return;
        }
    }
}
