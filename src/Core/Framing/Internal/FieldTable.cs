using System.Buffers.Binary;
using Prewire.Amqp;

namespace Prewire.Framing.Internal;

/// <summary>
/// AMQP field tables as RabbitMQ reads and writes them. In a table, a value is one of: null ('V'),
/// bool ('t'), sbyte ('b'), byte ('B'), short ('s'), ushort ('u'), int ('I'), uint ('i'), long ('l'),
/// float ('f'), double ('d'), <see cref="AmqpDecimal"/> ('D'), string or byte[] ('S', long string),
/// <see cref="AmqpBytes"/> ('x'), <see cref="AmqpTimestamp"/> ('T'), a nested table ('F') or a
/// <see cref="List{T}"/> of values ('A'). Long strings read back as byte[], so a table read and
/// written again is byte-for-byte the same.
/// </summary>
internal static class FieldTable
{
    /// <summary>Encoded size, including the 32-bit length prefix.</summary>
    public static int GetSize(Dictionary<string, object?>? table)
    {
        var size = 4;
        if (table is null) return size;
        foreach (var (key, value) in table) size += AmqpWriter.ShortStringSize(key) + 1 + ValueSize(value);
        return size;
    }

    internal static void Write(ref AmqpWriter writer, Dictionary<string, object?>? table) => Write(ref writer, table, null, 0);

    // With one more 'l' entry after the table's own, written without touching the caller's dictionary
    // (the publisher tags mandatory messages this way to match basic.return to its publish).
    internal static int GetSize(Dictionary<string, object?>? table, string? extraKey) =>
        GetSize(table) + (extraKey is null ? 0 : AmqpWriter.ShortStringSize(extraKey) + 1 + 8);

    // The length is patched in once the entries are written: the frame was sized beforehand (GetSize), and
    // sizing the table again here cost ~1,200 instructions a publish (UTF-8 counts of every key and value).
    internal static void Write(ref AmqpWriter writer, Dictionary<string, object?>? table, string? extraKey, long extraValue)
    {
        var start = writer.Position;
        writer.WriteLong(0);
        if (table is not null)
        {
            foreach (var (key, value) in table)
            {
                writer.WriteShortString(key);
                WriteValue(ref writer, value);
            }
        }
        if (extraKey is not null)
        {
            writer.WriteShortString(extraKey);
            // Written here, not through WriteValue: passed as object, the long was boxed (24 B per publish).
            writer.WriteOctet((byte)'l');
            writer.WriteLongLong(unchecked((ulong)extraValue));
        }
        writer.PatchLong(start, (uint)(writer.Position - start - 4));
    }

    internal static Dictionary<string, object?> Read(ref AmqpReader reader)
    {
        var inner = Nested(ref reader, "field tables");
        var table = new Dictionary<string, object?>(StringComparer.Ordinal);
        while (inner.Remaining > 0)
        {
            var key = inner.ReadShortString();
            table[key] = ReadValue(ref inner);
        }
        return table;
    }

    /// <summary>
    /// Reads the entry at <paramref name="at"/> of a table's entries in <paramref name="table"/> in place,
    /// moving <paramref name="at"/> past it: its key, its type and where its value lies. False when the
    /// entry is malformed, or its value is of a type read only by <see cref="Read"/> (not text, not an integer).
    /// </summary>
    public static bool TryReadEntry(ReadOnlySpan<byte> table, ref int at, out ReadOnlySpan<byte> key, out byte type, out int valueStart, out int valueLength)
    {
        key = default;
        (type, valueStart, valueLength) = (0, 0, 0);
        int keyLength = table[at];
        if (table.Length - at < 2 + keyLength) return false;
        key = table.Slice(at + 1, keyLength);
        type = table[at + 1 + keyLength];
        valueStart = at + 2 + keyLength;
        switch (type)
        {
            case (byte)'S':
                if (table.Length - valueStart < 4) return false;
                var declared = BinaryPrimitives.ReadUInt32BigEndian(table[valueStart..]);
                if (declared > (uint)(table.Length - valueStart - 4)) return false;
                (valueStart, valueLength) = (valueStart + 4, (int)declared);
                break;
            case (byte)'V':
                break;
            default:
                valueLength = IntegerSize(type);
                if (valueLength == 0 || table.Length - valueStart < valueLength) return false;
                break;
        }
        at = valueStart + valueLength;
        return true;
    }

    /// <summary>True for a value read as text: a long string, or void (empty text).</summary>
    public static bool IsText(byte type) => type is (byte)'S' or (byte)'V';

    /// <summary>An integer value (types b, B, s, u, I, i, l) of <see cref="TryReadEntry"/>.</summary>
    public static long ReadInteger(byte type, ReadOnlySpan<byte> value) => type switch
    {
        (byte)'b' => unchecked((sbyte)value[0]),
        (byte)'B' => value[0],
        (byte)'s' => BinaryPrimitives.ReadInt16BigEndian(value),
        (byte)'u' => BinaryPrimitives.ReadUInt16BigEndian(value),
        (byte)'I' => BinaryPrimitives.ReadInt32BigEndian(value),
        (byte)'i' => BinaryPrimitives.ReadUInt32BigEndian(value),
        (byte)'l' => BinaryPrimitives.ReadInt64BigEndian(value),
        _ => throw new ArgumentOutOfRangeException(nameof(type), type, "not an integer field type"),
    };

    // The bytes an integer field of the type takes, or 0 for any other type.
    private static int IntegerSize(byte type) => type switch
    {
        (byte)'b' or (byte)'B' => 1,
        (byte)'s' or (byte)'u' => 2,
        (byte)'I' or (byte)'i' => 4,
        (byte)'l' => 8,
        _ => 0,
    };

    private static int ValueSize(object? value) => value switch
    {
        null => 0,
        bool or sbyte or byte => 1,
        short or ushort => 2,
        int or uint or float => 4,
        long or double or AmqpTimestamp => 8,
        AmqpDecimal => 5,
        string s => AmqpWriter.LongStringSize(s),
        byte[] bytes => 4 + bytes.Length,
        AmqpBytes bytes => 4 + bytes.Bytes.Length,
        Dictionary<string, object?> table => GetSize(table),
        List<object?> list => ArraySize(list),
        _ => throw Unsupported(value),
    };

    private static int ArraySize(List<object?> list)
    {
        var size = 4;
        foreach (var item in list) size += 1 + ValueSize(item);
        return size;
    }

    private static void WriteValue(ref AmqpWriter writer, object? value)
    {
        switch (value)
        {
            case null: writer.WriteOctet((byte)'V'); break;
            case bool b: writer.WriteOctet((byte)'t'); writer.WriteOctet(b ? (byte)1 : (byte)0); break;
            case sbyte sb: writer.WriteOctet((byte)'b'); writer.WriteOctet(unchecked((byte)sb)); break;
            case byte by: writer.WriteOctet((byte)'B'); writer.WriteOctet(by); break;
            case short s: writer.WriteOctet((byte)'s'); writer.WriteShort(unchecked((ushort)s)); break;
            case ushort us: writer.WriteOctet((byte)'u'); writer.WriteShort(us); break;
            case int i: writer.WriteOctet((byte)'I'); writer.WriteLong(unchecked((uint)i)); break;
            case uint ui: writer.WriteOctet((byte)'i'); writer.WriteLong(ui); break;
            case long l: writer.WriteOctet((byte)'l'); writer.WriteLongLong(unchecked((ulong)l)); break;
            case float f: writer.WriteOctet((byte)'f'); writer.WriteLong(BitConverter.SingleToUInt32Bits(f)); break;
            case double d: writer.WriteOctet((byte)'d'); writer.WriteLongLong(BitConverter.DoubleToUInt64Bits(d)); break;
            case AmqpDecimal m: writer.WriteOctet((byte)'D'); writer.WriteOctet(m.Scale); writer.WriteLong(unchecked((uint)m.Unscaled)); break;
            case AmqpTimestamp t: writer.WriteOctet((byte)'T'); writer.WriteLongLong(t.UnixSeconds); break;
            case string str: writer.WriteOctet((byte)'S'); writer.WriteLongString(str); break;
            case byte[] bytes: writer.WriteOctet((byte)'S'); writer.WriteLongString(bytes); break;
            case AmqpBytes x: writer.WriteOctet((byte)'x'); writer.WriteLongString(x.Bytes); break;
            case Dictionary<string, object?> table: writer.WriteOctet((byte)'F'); Write(ref writer, table); break;
            case List<object?> list:
                writer.WriteOctet((byte)'A');
                var start = writer.Position;
                writer.WriteLong(0);
                foreach (var item in list) WriteValue(ref writer, item);
                writer.PatchLong(start, (uint)(writer.Position - start - 4));
                break;
            default: throw Unsupported(value);
        }
    }

    private static object? ReadValue(ref AmqpReader reader)
    {
        var type = reader.ReadOctet();
        switch ((char)type)
        {
            case 'V': return null;
            case 't': return reader.ReadOctet() != 0;
            case 'b': return unchecked((sbyte)reader.ReadOctet());
            case 'B': return reader.ReadOctet();
            case 's': return unchecked((short)reader.ReadShort());
            case 'u': return reader.ReadShort();
            case 'I': return unchecked((int)reader.ReadLong());
            case 'i': return reader.ReadLong();
            case 'l': return unchecked((long)reader.ReadLongLong());
            case 'f': return BitConverter.UInt32BitsToSingle(reader.ReadLong());
            case 'd': return BitConverter.UInt64BitsToDouble(reader.ReadLongLong());
            case 'D': return new AmqpDecimal(reader.ReadOctet(), unchecked((int)reader.ReadLong()));
            case 'T': return new AmqpTimestamp(reader.ReadLongLong());
            case 'S': return reader.ReadLongString();
            case 'x': return new AmqpBytes(reader.ReadLongString());
            case 'F': return Read(ref reader);
            case 'A':
            {
                var inner = Nested(ref reader, "field arrays");
                var list = new List<object?>();
                while (inner.Remaining > 0) list.Add(ReadValue(ref inner));
                return list;
            }
            default:
                throw new AmqpProtocolException($"unknown field value type 0x{type:X2} ('{(type is >= 0x20 and < 0x7F ? (char)type : '?')}').");
        }
    }

    // A table or array: its 32-bit length, then a reader over exactly those bytes, one level deeper.
    private static AmqpReader Nested(ref AmqpReader reader, string what)
    {
        var length = reader.ReadLong();
        var depth = reader.Depth + 1;
        if (depth > AmqpReader.MaxTableDepth) throw new AmqpProtocolException($"{what} nest deeper than {AmqpReader.MaxTableDepth} levels.");
        return new AmqpReader(reader.ReadBytes(length)) { Depth = depth };
    }

    private static ArgumentException Unsupported(object value) =>
        new($"a field table cannot hold a {value.GetType().Name}; see FieldTable for the supported types", nameof(value));
}
