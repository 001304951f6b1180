using System.Globalization;
using System.Text.Json;
using System.Text.Json.Serialization;
using Prewire.Build;

namespace Prewire.Testing;

/// <summary>
/// One app × RID as recorded: its timed figures (<see cref="StartupFigure"/>, each against the NativeAOT
/// hello world in the same run), its instruction counts (against the same floor) and its start's
/// faults and peak RSS where they are measured (natively), and the AOT binary's size.
/// </summary>
public sealed record BaselineEntry(string App, string Rid, long BinaryBytes, IReadOnlyList<StartupFigure> Figures,
    IReadOnlyList<InstructionFigure>? Instructions = null, ResourceFigure? Resources = null);

/// <summary>
/// The committed start-up and size baseline (build/startup-baseline.json), and the rules a
/// measurement is held to. `./build.sh baseline` re-records it on purpose; nothing loosens it silently.
/// </summary>
/// <remarks>
/// Three instruments, each for what it sees. Instructions (cachegrind) are the work an app does, the
/// same under any load, so their tolerance is tight; faults and peak RSS follow what the start
/// touches; the wall clock is kept for what neither sees (a sleep, a wait on a socket), and is only
/// as tight as never to fail an unchanged app under load.
/// What is gated is an app's excess over the floor (build/StartupFloor: a NativeAOT hello world with
/// the apps' settings, started alternately with it), never the app's own time, so a slower or busier
/// host moves the floor as well and only the app's own work shows. The timed allowance is the package
/// gate's (<see cref="StartupAllowance"/>); `./build.sh gate-sensitivity` measures which regressions it
/// catches (docs/smoke-tests.md).
/// </remarks>
public sealed class StartupBaseline
{
    /// <summary>Size is deterministic for one toolchain: 2 %, as aspnet/Benchmarks flags AOT size regressions.</summary>
    public const double SizeTolerance = 0.02;

    /// <summary>
    /// How much an app's instructions over the floor may move, either way: 1 %. Counted three times
    /// and the least kept, an unchanged start moved by under 0.1 % run to run idle and beside two busy
    /// loops; 200 µs of added work is about 1 million instructions, 6 % of the Consumer's 17 million
    /// (docs/smoke-tests.md). A count that fell by more is a gain to lock in by re-recording.
    /// </summary>
    public const double InstructionTolerance = 0.01;

    /// <summary>
    /// With the loopback broker: 2 %. While it waits for the broker the runtime spins a bounded number
    /// of times before it sleeps, and how often a reply lands within the spin moved the Publisher's
    /// least by 0.5 % between an idle host and two busy loops.
    /// </summary>
    public const double BrokerInstructionTolerance = 0.02;

    /// <summary>Faults (minor and major) a start may add: 5 %; the least of 5 runs moved by under 1 % here.</summary>
    public const double FaultTolerance = 0.05;

    /// <summary>Peak RSS a start may add: 10 %; the least of 5 runs moved by up to 3 % here (the GC's first commit, thread stacks).</summary>
    public const double PeakRssTolerance = 0.1;

    /// <summary>
    /// With the loopback broker, which shares the cores, at least 8 ms natively (<see cref="StartupAllowance.Native"/>
    /// for the rest). Beside a busy loop on each of 2 cores the Publisher's least start with the broker came
    /// 6.35 ms past its recorded excess on CI's machine (3 ms and half the excess, 6.2, allowed then) and
    /// 7.2 ms beside two loops a core here, the broker's priority raised to the app's or not, while its
    /// starts without the broker held. The Publisher's allowance is then 11.2 ms, for a wait on the way to
    /// the broker; work there is held in instructions.
    /// </summary>
    public const double NativeBrokerAllowanceMs = 8;

    public static string FilePath => Path.Combine(Repo.Root, "build", "startup-baseline.json");

    /// <summary>What the figures were recorded with and how, for whoever reads the file.</summary>
    public required string RecordedWith { get; init; }

    public required IReadOnlyList<BaselineEntry> Entries { get; init; }

    public static StartupBaseline Read() =>
        JsonSerializer.Deserialize(File.ReadAllText(FilePath), BaselineJson.Default.StartupBaseline)
        ?? throw new InvalidDataException($"{FilePath} is empty");

    public void Write() => File.WriteAllText(FilePath, JsonSerializer.Serialize(this, BaselineJson.Default.StartupBaseline) + "\n");

    /// <summary>The recorded entry for an app × RID, or null.</summary>
    public BaselineEntry? Find(string app, string rid) => Entries.FirstOrDefault(e => e.App == app && e.Rid == rid);

    /// <summary>
    /// Milliseconds <paramref name="recorded"/>'s gated excess (<see cref="GatedExcessMs"/>) may grow on
    /// <paramref name="rid"/>: the package gate's rules (<see cref="StartupAllowance"/>), natively the one
    /// for the time off the CPU.
    /// </summary>
    public static double AllowanceMs(StartupFigure recorded, string rid)
    {
        ArgumentNullException.ThrowIfNull(recorded);
        if (Qemu.Emulates(rid)) return StartupAllowance.Emulated.AllowedMs(recorded.FloorMs, recorded.ExcessMs);
        var rule = recorded.Name == StartupFigure.Names.ReadyWithBroker ? StartupAllowance.OffCpu with { Ms = NativeBrokerAllowanceMs } : StartupAllowance.OffCpu;
        return rule.AllowedMs(recorded.FloorMs, recorded.ExcessOffCpuMs ?? 0);
    }

    /// <summary>
    /// What the wall clock holds of <paramref name="measured"/> on <paramref name="rid"/>, in the terms of
    /// <paramref name="recorded"/>: natively the time off the CPU beyond the floor's (the work, faults
    /// included, is held in instructions and faults; its time follows the host's speed that day); under
    /// qemu, where nothing is counted, the whole excess scaled to the recorded floor. Null where the time
    /// off the CPU was not read.
    /// </summary>
    public static double? GatedExcessMs(StartupFigure recorded, StartupFigure measured, string rid)
    {
        ArgumentNullException.ThrowIfNull(recorded);
        ArgumentNullException.ThrowIfNull(measured);
        return Qemu.Emulates(rid) ? StartupAllowance.ScaledExcessMs(recorded.FloorMs, measured.FloorMs, measured.ExcessMs) : measured.ExcessOffCpuMs;
    }

    /// <summary>
    /// How many milliseconds <paramref name="measured"/>'s gated excess (<see cref="GatedExcessMs"/>) is over
    /// <paramref name="recorded"/>'s, the figure <see cref="AllowanceMs"/> bounds; null where either was not read.
    /// </summary>
    public static double? OverRecordedMs(StartupFigure recorded, StartupFigure measured, string rid) =>
        GatedExcessMs(recorded, recorded, rid) is { } before && GatedExcessMs(recorded, measured, rid) is { } excess ? excess - before : null;

    /// <summary>Every check (<see cref="CheckCounts"/> and <see cref="CheckTimes"/>); empty when nothing moved.</summary>
    public IReadOnlyList<string> Check(BaselineEntry measured) => [.. CheckCounts(measured), .. CheckTimes(measured)];

    /// <summary>
    /// What load cannot move: the binary's size, the instruction counts, the faults and peak RSS.
    /// Each failure says from what to what; empty when nothing moved beyond its tolerance.
    /// </summary>
    public IReadOnlyList<string> CheckCounts(BaselineEntry measured)
    {
        ArgumentNullException.ThrowIfNull(measured);
        var failures = new List<string>();
        var name = $"{measured.App} {measured.Rid}";
        if (Find(measured.App, measured.Rid) is not { } recorded)
        {
            failures.Add($"{name}: not in {Path.GetRelativePath(Repo.Root, FilePath)}; record it with ./build.sh baseline");
            return failures;
        }

        // Both ways: a binary that shrank past the tolerance would otherwise leave room to grow back unseen.
        var sizeChange = (measured.BinaryBytes - recorded.BinaryBytes) / (double)recorded.BinaryBytes;
        if (Math.Abs(sizeChange) > SizeTolerance)
        {
            failures.Add(string.Create(CultureInfo.InvariantCulture, $"{name}: binary {(sizeChange > 0 ? "grew" : "shrank")} {Math.Abs(sizeChange):P1}, from {recorded.BinaryBytes:N0} B to {measured.BinaryBytes:N0} B (tolerance {SizeTolerance:P0}); if that is intended, re-record with ./build.sh baseline"));
        }

        foreach (var was in recorded.Instructions ?? [])
        {
            if (measured.Instructions?.FirstOrDefault(f => f.Name == was.Name) is not { } now)
            {
                failures.Add($"{name}: {was.Name} was not counted in instructions (valgrind missing? build/bootstrap.sh installs it)");
                continue;
            }
            var tolerance = InstructionToleranceFor(was.Name);
            var change = (now.Excess - was.Excess) / (double)was.Excess;
            if (Math.Abs(change) <= tolerance) continue;
            failures.Add(string.Create(CultureInfo.InvariantCulture,
                $"{name}: {was.Name} executed {now.Excess:N0} instructions beyond the NativeAOT floor, {was.Excess:N0} when recorded: {(change > 0 ? "+" : "")}{change:P2} (tolerance {tolerance:P0} either way); today the floor {now.Floor:N0} and the app {now.App:N0}, recorded {was.Floor:N0} and {was.App:N0}; if that is intended, re-record with ./build.sh baseline"));
        }

        if (recorded.Resources is { } before)
        {
            if (measured.Resources is not { } after)
            {
                failures.Add($"{name}: faults and peak RSS were not measured (GNU time missing? build/bootstrap.sh installs it)");
            }
            else
            {
                if (after.Faults > before.Faults * (1 + FaultTolerance))
                    failures.Add(string.Create(CultureInfo.InvariantCulture, $"{name}: its start took {after.Faults:N0} page faults ({after.MinorFaults:N0} minor, {after.MajorFaults:N0} major), {before.Faults:N0} when recorded (tolerance +{FaultTolerance:P0}){HugePagesOffNote()}; if that is intended, re-record with ./build.sh baseline"));
                if (after.PeakRssKb > before.PeakRssKb * (1 + PeakRssTolerance))
                    failures.Add(string.Create(CultureInfo.InvariantCulture, $"{name}: its start peaked at {after.PeakRssKb:N0} KB resident, {before.PeakRssKb:N0} KB when recorded (tolerance +{PeakRssTolerance:P0}); if that is intended, re-record with ./build.sh baseline"));
            }
        }
        return failures;
    }

    // The apps' start writes .hydrated into one transparent huge page (build/HugePages.targets); a host
    // with them off gives it ~500 small pages, each a fault, which the recorded count did not have.
    private static string HugePagesOffNote() =>
        File.Exists(TransparentHugePages) && File.ReadAllText(TransparentHugePages).Contains("[never]", StringComparison.Ordinal)
            ? $" ({TransparentHugePages} says never: the apps' .hydrated section falls back to small pages, build/HugePages.targets)"
            : "";

    private const string TransparentHugePages = "/sys/kernel/mm/transparent_hugepage/enabled";

    /// <summary>The instruction tolerance of a figure: wider where the broker is waited on.</summary>
    public static double InstructionToleranceFor(string figure) =>
        figure == StartupFigure.Names.ReadyWithBroker ? BrokerInstructionTolerance : InstructionTolerance;

    /// <summary>The timed figures against their allowances; empty when none grew beyond.</summary>
    public IReadOnlyList<string> CheckTimes(BaselineEntry measured) => [.. TimeFailures(measured).Select(f => f.Message)];

    /// <summary>The names of the timed figures <see cref="CheckTimes"/> fails, the ones worth measuring again.</summary>
    public IReadOnlySet<string> FailingTimes(BaselineEntry measured) => TimeFailures(measured).Select(f => f.Figure).ToHashSet();

    private List<(string Figure, string Message)> TimeFailures(BaselineEntry measured)
    {
        ArgumentNullException.ThrowIfNull(measured);
        var failures = new List<(string, string)>();
        var name = $"{measured.App} {measured.Rid}";
        if (Find(measured.App, measured.Rid) is not { } recorded) return failures;

        foreach (var was in recorded.Figures)
        {
            if (measured.Figures.FirstOrDefault(f => f.Name == was.Name) is not { } now)
            {
                failures.Add((was.Name, $"{name}: {was.Name} was not measured"));
                continue;
            }
            if (TimeFailure(name, was, now, measured.Rid) is { } failure) failures.Add((was.Name, failure));
        }
        return failures;
    }

    private static string? TimeFailure(string name, StartupFigure was, StartupFigure now, string rid)
    {
        if (was.AppUnderFloor)
            return string.Create(CultureInfo.InvariantCulture, $"{name}: {was.Name} was recorded with the app under the NativeAOT floor ({was.AppMs:0.00} against {was.FloorMs:0.00} ms), a measurement the host spoiled; re-record with ./build.sh baseline");
        if (GatedExcessMs(was, was, rid) is not { } before || GatedExcessMs(was, now, rid) is not { } excess)
            return $"{name}: {was.Name}: no time off the CPU {(was.ExcessOffCpuMs is null ? "recorded; re-record with ./build.sh baseline" : "measured")}";
        var allowed = AllowanceMs(was, rid);
        if (excess <= before + allowed) return null;
        return Qemu.Emulates(rid)
            ? string.Create(CultureInfo.InvariantCulture,
                $"{name}: {was.Name} took {excess:0.00} ms beyond the NativeAOT floor, {before:0.00} ms when recorded (allowed: +{allowed:0.00} ms); today the floor {now.FloorMs:0.00} ms and the app {now.AppMs:0.00} ms, recorded {was.FloorMs:0.00} and {was.AppMs:0.00} (under qemu); if that is intended, re-record with ./build.sh baseline")
            : string.Create(CultureInfo.InvariantCulture,
                $"{name}: {was.Name} spent {excess:0.00} ms more off the CPU than the NativeAOT floor, {before:0.00} ms when recorded (allowed: +{allowed:0.00} ms): a sleep or a wait, not work (that is counted in instructions); today the floor {now.FloorOffCpuMs:0.00} of {now.FloorMs:0.00} ms and the app {now.AppOffCpuMs:0.00} of {now.AppMs:0.00} ms, recorded {was.FloorOffCpuMs:0.00} of {was.FloorMs:0.00} and {was.AppOffCpuMs:0.00} of {was.AppMs:0.00}; if that is intended, re-record with ./build.sh baseline");
    }
}

[JsonSourceGenerationOptions(WriteIndented = true, PropertyNamingPolicy = JsonKnownNamingPolicy.CamelCase, DefaultIgnoreCondition = JsonIgnoreCondition.WhenWritingNull)]
[JsonSerializable(typeof(StartupBaseline))]
internal sealed partial class BaselineJson : JsonSerializerContext;
