using System.Text.Json.Serialization;
using Prewire.Build;

namespace Prewire.Testing;

/// <summary>
/// One timed figure of an app (<see cref="StartupFigure.Names"/>), measured against the floor in the
/// same run: the least of each over the pairs, so what the app itself costs shows and a run a busy
/// host happened to preempt does not. Beside the wall-clock time, the part of it each spent off the
/// CPU (<see cref="Prewire.Build.StartupTime"/>), where that was read.
/// </summary>
public sealed record StartupFigure(string Name, double FloorMs, double AppMs, double? FloorOffCpuMs = null, double? AppOffCpuMs = null)
{
    /// <summary>What the app takes beyond what any NativeAOT process here takes.</summary>
    [JsonIgnore]
    public double ExcessMs => AppMs - FloorMs;

    /// <summary>What the app spends off the CPU (a sleep, a wait) beyond what the floor does; null where not read.</summary>
    [JsonIgnore]
    public double? ExcessOffCpuMs => AppOffCpuMs - FloorOffCpuMs;

    /// <summary>
    /// The app beat the hello world, which it cannot: every app does all the floor does and more, so the
    /// floor's least run was one the host slowed (under qemu a run's time moves by a third). No baseline.
    /// </summary>
    [JsonIgnore]
    public bool AppUnderFloor => AppMs < FloorMs;

    /// <summary>The least of each figure of two measurements of the same binaries, as if their pairs had been one run.</summary>
    public static StartupFigure Least(StartupFigure a, StartupFigure b)
    {
        ArgumentNullException.ThrowIfNull(a);
        ArgumentNullException.ThrowIfNull(b);
        var floor = StartupTime.Least(new(a.FloorMs, a.FloorOffCpuMs), new(b.FloorMs, b.FloorOffCpuMs));
        var app = StartupTime.Least(new(a.AppMs, a.AppOffCpuMs), new(b.AppMs, b.AppOffCpuMs));
        return a with { FloorMs = floor.Ms, AppMs = app.Ms, FloorOffCpuMs = floor.OffCpuMs, AppOffCpuMs = app.OffCpuMs };
    }

    /// <summary>The figures, by name as build/startup-baseline.json keeps them.</summary>
    public static class Names
    {
        /// <summary>Spawn to the ready line, no broker.</summary>
        public const string Ready = "spawn to ready";

        /// <summary>Spawn to the ready line with the loopback broker: connected, channel open, queue declared.</summary>
        public const string ReadyWithBroker = "spawn to ready, with the broker";

        /// <summary>Spawn to exit of <c>--help</c>.</summary>
        public const string Help = "spawn to exit, --help";

        /// <summary>Spawn to exit of a run with nothing to do (a console without a broker).</summary>
        public const string OneShot = "spawn to exit, no broker";
    }
}
