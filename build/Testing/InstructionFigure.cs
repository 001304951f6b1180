using System.Text.Json.Serialization;

namespace Prewire.Testing;

/// <summary>
/// One figure of an app counted in instructions (<see cref="Cachegrind"/>), beside the floor's count
/// (build/StartupFloor) in the same run: the least of each over the runs, since waits can only add
/// spinning. Named as <see cref="StartupFigure.Names"/>.
/// </summary>
public sealed record InstructionFigure(string Name, long Floor, long App)
{
    /// <summary>What the app executes beyond what any NativeAOT process here executes.</summary>
    [JsonIgnore]
    public long Excess => App - Floor;
}
