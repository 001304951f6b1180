namespace Prewire.Samples;

/// <summary>
/// The measured windows of a warm-up report: what the process allocated in each and the pool's thread
/// count before the first and after each. A thread the pool adds under load allocates 2,880 B of its own
/// once (the Publisher, linux-x64), and on a busy host it added one in each of three windows in a row, so a
/// window in which the count moved does not count, and more are measured, up to <see cref="Most"/>, until
/// <see cref="Wanted"/> have it still. A cost per message is in every window, still or not.
/// </summary>
internal sealed class SteadyWindows
{
    public const int Wanted = 3, Most = 10;

    private readonly List<long> _bytes = [];
    private readonly List<long> _poolThreads;
    private readonly List<long> _still = [];

    public SteadyWindows(long poolThreadsBefore) => _poolThreads = [poolThreadsBefore];

    public IReadOnlyList<long> Bytes => _bytes;

    public IReadOnlyList<long> PoolThreads => _poolThreads;

    public bool Enough => _still.Count >= Wanted || _bytes.Count >= Most;

    /// <summary>The least of the still windows; of all of them when the pool moved in every one.</summary>
    public long Least => (_still.Count > 0 ? _still : _bytes).Min();

    public void Add(long bytes, long poolThreadsAfter)
    {
        if (poolThreadsAfter == _poolThreads[^1]) _still.Add(bytes);
        _bytes.Add(bytes);
        _poolThreads.Add(poolThreadsAfter);
    }
}
