using System.Numerics;

namespace Prewire.Messaging.Internal;

/// <summary>
/// A message id of 32 lowercase hex digits (a <see cref="Guid"/> written "N", as the apps and
/// <see cref="OutgoingLogicalContext.Rent(Guid, object, CancellationToken)"/> send them) read as a value:
/// only that text, so the string made of the value later is the text that came.
/// </summary>
internal static class HexMessageId
{
    public static bool TryParse(ReadOnlySpan<byte> utf8, out Guid id) => TryParse<byte>(utf8, out id);

    public static bool TryParse(ReadOnlySpan<char> text, out Guid id) => TryParse<char>(text, out id);

    // Decoded here rather than by Guid's parsers, which accept more forms: 4 KB less of the Consumer's binary.
    private static bool TryParse<T>(ReadOnlySpan<T> text, out Guid id) where T : unmanaged, IBinaryInteger<T>
    {
        id = default;
        if (text.Length != 32) return false;
        Span<byte> bytes = stackalloc byte[16];
        for (var i = 0; i < text.Length; i++)
        {
            var c = int.CreateTruncating(text[i]);
            var digit = c is >= '0' and <= '9' ? c - '0' : c is >= 'a' and <= 'f' ? c - 'a' + 10 : -1;
            if (digit < 0) return false;
            bytes[i / 2] = (i & 1) == 0 ? (byte)(digit << 4) : (byte)(bytes[i / 2] | digit);
        }
        // "N" writes the value's bytes in big-endian order.
        id = new Guid(bytes, bigEndian: true);
        return true;
    }
}
