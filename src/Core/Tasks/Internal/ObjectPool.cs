namespace Prewire.Tasks.Internal;

/// <summary>
/// A small lock-free pool per type: one item per thread first (no interlocked operation on the
/// common rent-complete-await-return cycle), then a shared array. Never blocks, never grows:
/// when it is empty a caller allocates, when it is full a returned item is left to the GC.
/// </summary>
internal static class ObjectPool<T>
    where T : class
{
    [ThreadStatic]
    private static T? _threadLocal;

    // Sized for many operations in flight at once (a queue of lock waiters, a window of confirms):
    // a return that finds no free slot is dropped and the next rent allocates.
    private static readonly T?[] _shared = new T?[Math.Max(64, Environment.ProcessorCount * 16)];

    public static T? TryRent()
    {
        var item = _threadLocal;
        if (item is not null)
        {
            _threadLocal = null;
            return item;
        }
        var shared = _shared;
        for (var i = 0; i < shared.Length; i++)
        {
            item = Volatile.Read(ref shared[i]);
            if (item is not null && Interlocked.CompareExchange(ref shared[i], null, item) == item) return item;
        }
        return null;
    }

    public static void Return(T item)
    {
        if (_threadLocal is null)
        {
            _threadLocal = item;
            return;
        }
        var shared = _shared;
        for (var i = 0; i < shared.Length; i++)
        {
            if (Volatile.Read(ref shared[i]) is null && Interlocked.CompareExchange(ref shared[i], item, null) is null) return;
        }
    }
}
