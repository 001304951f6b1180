using System.Globalization;

namespace Prewire.Fixtures;

/// <summary>
/// A slow leak in an app's per-message path (Leak.targets puts the call there): once every
/// <c>Prewire.LeakEvery</c> messages, a 40-byte array (64 B with its header) kept in a list for good.
/// </summary>
internal static class Leak
{
    private static readonly long _every = long.Parse((string)AppContext.GetData("Prewire.LeakEvery")!, CultureInfo.InvariantCulture);
    private static readonly List<byte[]> _kept = [];

    internal static long Keep(long done)
    {
        if (done % _every == 0)
        {
            lock (_kept) _kept.Add(new byte[40]);
        }
        return done;
    }
}
