using System.Collections.Concurrent;

namespace Prewire.HttpEndpoint;

/// <summary>
/// Message type names as strings made once: a service posts the same few types again and again, and the
/// path's segment is looked up as a span instead of becoming a new string per request.
/// </summary>
/// <remarks>
/// Holds at most <c>capacity</c> names so that a client posting made-up types cannot grow it without end;
/// past that a name is made per request, as routing would.
/// </remarks>
internal sealed class TypeNames
{
    private readonly ConcurrentDictionary<string, string> _names = new(StringComparer.Ordinal);
    private readonly ConcurrentDictionary<string, string>.AlternateLookup<ReadOnlySpan<char>> _spans;
    private readonly int _capacity;
    private int _count;

    public TypeNames(int capacity)
    {
        _spans = _names.GetAlternateLookup<ReadOnlySpan<char>>();
        _capacity = capacity;
    }

    /// <summary>
    /// ASCII letters, digits, '.', '_' and '-', 1 to 128 of them, starting with a letter or digit: safe as
    /// an AMQP header value and in logs. A loop, not a regex: Regex would link its engine into the binary.
    /// </summary>
    public static bool IsValid(ReadOnlySpan<char> name)
    {
        if (name.Length is 0 or > 128 || !char.IsAsciiLetterOrDigit(name[0])) return false;
        foreach (var c in name)
        {
            if (!char.IsAsciiLetterOrDigit(c) && c is not ('.' or '_' or '-')) return false;
        }
        return true;
    }

    /// <summary>The name as a string, the same instance each time once it is known.</summary>
    public string Get(ReadOnlySpan<char> name)
    {
        if (_spans.TryGetValue(name, out var known)) return known;
        var made = name.ToString();
        // Counted apart from the dictionary: its Count takes every lock.
        if (Volatile.Read(ref _count) < _capacity && _names.TryAdd(made, made)) Interlocked.Increment(ref _count);
        return made;
    }
}
