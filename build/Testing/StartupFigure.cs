using System.Text.Json.Serialization;

namespace Prewire.Testing;

/// <summary>
/// One timed figure of an app (<see cref="StartupFigure.Names"/>), measured against the floor in the
/// same run: the least of each over the pairs, so what the app itself costs shows and a run a busy
/// host happened to preempt does not.
/// </summary>
public sealed record StartupFigure(string Name, double FloorMs, double AppMs)
{
    /// <summary>What the app takes beyond what any NativeAOT process here takes.</summary>
    [JsonIgnore]
    public double ExcessMs => AppMs - FloorMs;

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
