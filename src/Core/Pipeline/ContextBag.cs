using System.Diagnostics.CodeAnalysis;

namespace Prewire.Pipeline;

/// <summary>
/// Per-message state keyed by type (or by type and name), inherited by child contexts: a lookup
/// that misses here asks the parent; a write never changes the parent.
/// </summary>
/// <remarks>Not thread-safe, like the context it belongs to. Allocates its table on the first write only.</remarks>
public sealed class ContextBag
{
    private readonly ContextBag? _parent;
    private Dictionary<string, object>? _entries;

    /// <summary>A root bag, or a child of <paramref name="parent"/>.</summary>
    public ContextBag(ContextBag? parent = null) => _parent = parent;

    /// <summary>Stores <paramref name="value"/> under its type (and <paramref name="name"/>, when given).</summary>
    public void Set<T>(T value, string? name = null)
        where T : notnull =>
        (_entries ??= new Dictionary<string, object>(StringComparer.Ordinal))[Key<T>(name)] = value;

    /// <summary>Looks the value up here, then in the parents.</summary>
    public bool TryGet<T>([MaybeNullWhen(false)] out T value, string? name = null)
        where T : notnull
    {
        var key = Key<T>(name);
        for (var bag = this; bag is not null; bag = bag._parent)
        {
            if (bag._entries is not null && bag._entries.TryGetValue(key, out var found))
            {
                value = (T)found;
                return true;
            }
        }
        value = default;
        return false;
    }

    /// <summary>Looks the value up here, then in the parents; throws when it is nowhere.</summary>
    public T Get<T>(string? name = null)
        where T : notnull =>
        TryGet<T>(out var value, name)
            ? value
            : throw new KeyNotFoundException($"No {typeof(T).Name}{(name is null ? "" : $" named '{name}'")} in this context or its parents.");

    /// <summary>Removes the value from this bag (a parent's stays visible).</summary>
    public bool Remove<T>(string? name = null)
        where T : notnull => _entries?.Remove(Key<T>(name)) ?? false;

    private static string Key<T>(string? name) => name is null ? typeof(T).FullName! : $"{typeof(T).FullName}:{name}";
}
