namespace Prewire.Messaging;

/// <summary>How a <see cref="BrokerConnection"/> tries again after losing its connection: exponential backoff, then giving up.</summary>
public sealed class ReconnectPolicy
{
    /// <summary>The wait before the second attempt; each later wait doubles, up to <see cref="MaxDelay"/>.</summary>
    /// <remarks>Defaults to 250 ms: a node restarting takes seconds, a dropped connection on a live node none.</remarks>
    public TimeSpan FirstDelay { get; init; } = TimeSpan.FromMilliseconds(250);

    /// <summary>The longest wait between two attempts.</summary>
    /// <remarks>Defaults to 4 seconds.</remarks>
    public TimeSpan MaxDelay { get; init; } = TimeSpan.FromSeconds(4);

    /// <summary>How long after the loss to stop trying and fail; <see cref="Timeout.InfiniteTimeSpan"/> never gives up (a server that waits for its broker).</summary>
    /// <remarks>
    /// Defaults to 20 seconds: long enough for a node restart or a cluster's failover, short enough
    /// that a broker that is gone is reported well within half a minute.
    /// </remarks>
    public TimeSpan GiveUpAfter { get; init; } = TimeSpan.FromSeconds(20);

    /// <summary>The wait after attempt <paramref name="attempt"/> (1-based) failed.</summary>
    public TimeSpan DelayAfter(int attempt) =>
        TimeSpan.FromTicks(Math.Min(MaxDelay.Ticks, FirstDelay.Ticks << Math.Min(attempt - 1, 20)));
}
