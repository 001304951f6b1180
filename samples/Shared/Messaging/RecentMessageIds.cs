using Prewire.Messaging;

namespace Prewire.Samples.Messaging;

/// <summary>
/// The ids of the last <c>capacity</c> messages handled, oldest forgotten first: the window in which a
/// redelivery (an acknowledgement lost with a connection, a message published again after a lost
/// confirm) is recognised. Sized once, when it remembers its first id, so remembering an id allocates
/// nothing after that; an id of 32 hex digits is kept as its 16 bytes
/// (<see cref="TransportReceiveContext.TryGetMessageId"/>), so no string is made of it for the window
/// either. A message without an id is never in it.
/// </summary>
public sealed class RecentMessageIds
{
    private readonly Lock _lock = new();
    private readonly int _capacity;
    // Made with the first id, not before the app is ready: 10,000 ids are 600 KB to clear, 0.6 M
    // instructions of the Consumer's start (valgrind --tool=cachegrind, --dedup-window 10000 against 0).
    private HashSet<Key>? _ids;
    private Queue<Key>? _order;

    /// <summary>Creates a window of <paramref name="capacity"/> ids (0: none are remembered).</summary>
    public RecentMessageIds(int capacity)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(capacity);
        _capacity = capacity;
    }

    /// <summary>Whether the id of <paramref name="message"/> is in the window.</summary>
    public bool Contains(TransportReceiveContext message)
    {
        if (!TryKey(message, out var key)) return false;
        lock (_lock) return _ids?.Contains(key) == true;
    }

    /// <summary>Remembers the id of <paramref name="message"/>, forgetting the oldest when the window is full.</summary>
    public void Add(TransportReceiveContext message)
    {
        if (!TryKey(message, out var key) || _capacity == 0) return;
        lock (_lock)
        {
            _ids ??= new HashSet<Key>(_capacity);
            _order ??= new Queue<Key>(_capacity);
            if (!_ids.Add(key)) return;
            if (_order.Count == _capacity) _ids.Remove(_order.Dequeue());
            _order.Enqueue(key);
        }
    }

    private static bool TryKey(TransportReceiveContext message, out Key key)
    {
        ArgumentNullException.ThrowIfNull(message);
        key = message.TryGetMessageId(out var id) ? new Key(id, null) : new Key(default, message.MessageId);
        return key.Text is not { Length: 0 };
    }

    // A value id or a text one; the transport reads an id as a value whenever it can, so one id has one key.
    private readonly record struct Key(Guid Id, string? Text);
}
