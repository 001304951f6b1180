using System.Collections;
using System.Diagnostics.CodeAnalysis;
using System.Globalization;
using System.Text;
using Prewire.Amqp.Internal;
using Prewire.Framing.Internal;

namespace Prewire.Messaging.Internal;

/// <summary>
/// A delivery's string headers where its content header holds them: each value's bytes are located on
/// the read loop (<see cref="DeliveryHeaderReader"/>), its string made only when somebody asks for it,
/// so a header the handler never reads costs nothing. Valid while the delivery is held, like its body.
/// A string's value is its UTF-8 text; an integer's (field types b, B, s, u, I, i, l) its invariant
/// decimal text, as the full read renders it.
/// </summary>
internal sealed class ReceivedHeaders : IReadOnlyDictionary<string, string>
{
    private Slot[] _slots = new Slot[8];
    private int _count;
    private ReadOnlyMemory<byte> _properties;

    public int Count => _count;

    public string this[string key] => TryGetValue(key, out var value) ? value : throw new KeyNotFoundException($"no header '{key}'");

    public IEnumerable<string> Keys => this.Select(h => h.Key);

    public IEnumerable<string> Values => this.Select(h => h.Value);

    /// <summary>Empties the view for a delivery whose property bytes are <paramref name="properties"/>.</summary>
    public void Reset(ReadOnlyMemory<byte> properties)
    {
        Array.Clear(_slots, 0, _count);
        (_count, _properties) = (0, properties);
    }

    /// <summary>
    /// A header whose value lies at <paramref name="start"/> in the property bytes, of field type
    /// <paramref name="type"/> (text or an integer); <paramref name="value"/> its string when made already.
    /// </summary>
    public void Add(Key key, int start, int length, string? value, byte type)
    {
        // A table that names a key twice: the last one holds, as in a dictionary filled in order.
        var index = IndexOf(key.Name);
        if (index < 0)
        {
            if (_count == _slots.Length) Array.Resize(ref _slots, _count * 2);
            index = _count++;
        }
        _slots[index] = new Slot(key, start, length, value, type);
    }

    /// <summary>A string value's UTF-8 bytes as received, without making its string; false for an integer or no such header.</summary>
    public bool TryGetUtf8(string key, out ReadOnlySpan<byte> value)
    {
        var index = IndexOf(key);
        var found = index >= 0 && FieldTable.IsText(_slots[index].Type);
        value = found ? Bytes(_slots[index]) : default;
        return found;
    }

    public bool TryGetValue(string key, [MaybeNullWhen(false)] out string value)
    {
        var index = IndexOf(key);
        value = index < 0 ? null : ValueAt(index);
        return value is not null;
    }

    public bool ContainsKey(string key) => IndexOf(key) >= 0;

    public IEnumerator<KeyValuePair<string, string>> GetEnumerator()
    {
        for (var i = 0; i < _count; i++) yield return new(_slots[i].Key.Name, ValueAt(i));
    }

    IEnumerator IEnumerable.GetEnumerator() => GetEnumerator();

    private int IndexOf(string key)
    {
        for (var i = 0; i < _count; i++)
        {
            if (string.Equals(_slots[i].Key.Name, key, StringComparison.Ordinal)) return i;
        }
        return -1;
    }

    private ReadOnlySpan<byte> Bytes(in Slot slot) => _properties.Span.Slice(slot.Start, slot.Length);

    private string ValueAt(int index)
    {
        ref var slot = ref _slots[index];
        if (slot.Value is null)
        {
            // Deliveries handled at once ask from several threads; the key's last value is shared.
            if (FieldTable.IsText(slot.Type)) lock (slot.Key) slot.Value = slot.Key.LastValue.Get(Bytes(slot));
            else slot.Value = FieldTable.ReadInteger(slot.Type, Bytes(slot)).ToString(CultureInfo.InvariantCulture);
        }
        return slot.Value;
    }

    /// <summary>A header key the reader has met: its bytes, its string, and the last value read for it.</summary>
    internal sealed class Key(byte[] bytes)
    {
        public byte[] Bytes { get; } = bytes;

        public string Name { get; } = Encoding.UTF8.GetString(bytes);

        /// <summary>The string of the last value made for this key: a value that repeats allocates once.</summary>
        public LastString LastValue { get; } = new();
    }

    private record struct Slot(Key Key, int Start, int Length, string? Value, byte Type);
}
