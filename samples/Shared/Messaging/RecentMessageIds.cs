namespace Prewire.Samples.Messaging;

/// <summary>
/// The ids of the last <c>capacity</c> messages handled, oldest forgotten first: the window in which a
/// redelivery (an acknowledgement lost with a connection, a message published again after a lost
/// confirm) is recognised. Sized up front, so remembering an id allocates nothing.
/// </summary>
public sealed class RecentMessageIds
{
    private readonly HashSet<string> _ids;
    private readonly Queue<string> _order;
    private readonly int _capacity;

    /// <summary>Creates a window of <paramref name="capacity"/> ids (0: none are remembered).</summary>
    public RecentMessageIds(int capacity)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(capacity);
        _capacity = capacity;
        _ids = new HashSet<string>(capacity, StringComparer.Ordinal);
        _order = new Queue<string>(capacity);
    }

    /// <summary>Whether <paramref name="id"/> is in the window.</summary>
    public bool Contains(string id)
    {
        lock (_ids) return _ids.Contains(id);
    }

    /// <summary>Remembers <paramref name="id"/>, forgetting the oldest when the window is full.</summary>
    public void Add(string id)
    {
        lock (_ids)
        {
            if (_capacity == 0 || !_ids.Add(id)) return;
            if (_order.Count == _capacity) _ids.Remove(_order.Dequeue());
            _order.Enqueue(id);
        }
    }
}
