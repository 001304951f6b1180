namespace Prewire.Testing;

/// <summary>The kinds of start-up regression <see cref="StartupDelayFixture"/> builds into an app.</summary>
public enum StartupDelayKind
{
    /// <summary>Busy for N ms of wall clock: fewer instructions the slower the machine (the timed check under qemu).</summary>
    Busy,

    /// <summary>A fixed loop that takes N µs natively on the build machine: the same instructions anywhere (the instruction gate).</summary>
    Work,

    /// <summary>Asleep for N ms: no instructions at all (the wall-clock check).</summary>
    Sleep,
}
