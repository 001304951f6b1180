using System.Globalization;
using System.Text.Json;
using System.Text.Json.Serialization;

namespace Prewire.Testing;

/// <summary>
/// One app × RID as recorded: its figures (<see cref="StartupFigure"/>, each against the NativeAOT
/// hello world in the same run) and the AOT binary's size.
/// </summary>
public sealed record BaselineEntry(string App, string Rid, long BinaryBytes, IReadOnlyList<StartupFigure> Figures);

/// <summary>
/// The committed start-up and size baseline (build/startup-baseline.json), and the rules a
/// measurement is held to. `./build.sh baseline` re-records it on purpose; nothing loosens it silently.
/// </summary>
/// <remarks>
/// What is gated is an app's excess over the floor (build/StartupFloor: a NativeAOT hello world with
/// the apps' settings, started alternately with it), never the app's own time, so a slower or busier
/// host moves the floor as well and only the app's own work shows. `./build.sh gate-sensitivity` measures
/// which regressions the allowances below catch (docs/smoke-tests.md).
/// </remarks>
public sealed class StartupBaseline
{
    /// <summary>Size is deterministic for one toolchain: 2 %, as aspnet/Benchmarks flags AOT size regressions.</summary>
    public const double SizeTolerance = 0.02;

    /// <summary>
    /// Milliseconds an excess may grow natively: 60 pairs of a Consumer's spawn-to-ready stayed within
    /// 0.3 ms of its idle excess on this 2-core machine idle, beside one busy loop and beside a build,
    /// and a Consumer that starts 2 ms later came out 1.8-2.6 ms over it.
    /// </summary>
    public const double NativeAllowanceMs = 1;

    /// <summary>
    /// With the loopback broker, which shares the cores: 60 pairs moved by up to 0.9 ms beside a build
    /// (3.7 ms once in 300 draws).
    /// </summary>
    public const double NativeBrokerAllowanceMs = 3;

    /// <summary>
    /// Under qemu a run takes 0.3 s (a console) to 2 s (the web app), each varying by ~10 ms: the
    /// excess of 10 pairs moves by up to this much.
    /// </summary>
    public const double EmulatedAllowanceMs = 40;

    /// <summary>And a share of the recorded excess, for the web app, whose 20 ms of start-up spans more threads.</summary>
    public const double RelativeAllowance = 0.1;

    /// <summary>
    /// How far the floor may be taken to have moved: the excess is scaled by the recorded floor over
    /// today's (a slower host makes both slower), within these bounds.
    /// </summary>
    public const double MaxFloorScale = 2;

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

    /// <summary>Milliseconds <paramref name="recorded"/>'s excess may grow on <paramref name="rid"/>.</summary>
    public static double AllowanceMs(StartupFigure recorded, string rid)
    {
        ArgumentNullException.ThrowIfNull(recorded);
        var absolute = Qemu.Emulates(rid) ? EmulatedAllowanceMs
            : recorded.Name == StartupFigure.Names.ReadyWithBroker ? NativeBrokerAllowanceMs
            : NativeAllowanceMs;
        return absolute + (RelativeAllowance * Math.Max(0, recorded.ExcessMs));
    }

    /// <summary>Today's excess scaled to the recorded floor: what it would have been on the host that recorded it.</summary>
    public static double ScaledExcessMs(StartupFigure recorded, StartupFigure measured)
    {
        ArgumentNullException.ThrowIfNull(recorded);
        ArgumentNullException.ThrowIfNull(measured);
        return measured.ExcessMs * Math.Clamp(recorded.FloorMs / measured.FloorMs, 1 / MaxFloorScale, MaxFloorScale);
    }

    /// <summary>What moved beyond its tolerance, each saying from what to what; empty when nothing did.</summary>
    public IReadOnlyList<string> Check(BaselineEntry measured)
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

        foreach (var was in recorded.Figures)
        {
            if (measured.Figures.FirstOrDefault(f => f.Name == was.Name) is not { } now)
            {
                failures.Add($"{name}: {was.Name} was not measured");
                continue;
            }
            var (excess, allowed) = (ScaledExcessMs(was, now), AllowanceMs(was, measured.Rid));
            if (excess <= was.ExcessMs + allowed) continue;
            failures.Add(string.Create(CultureInfo.InvariantCulture,
                $"{name}: {was.Name} took {excess:0.00} ms beyond the NativeAOT floor, {was.ExcessMs:0.00} ms when recorded (allowed: +{allowed:0.00} ms); today the floor {now.FloorMs:0.00} ms and the app {now.AppMs:0.00} ms, recorded {was.FloorMs:0.00} and {was.AppMs:0.00}{(Qemu.Emulates(measured.Rid) ? " (under qemu)" : "")}; if that is intended, re-record with ./build.sh baseline"));
        }
        return failures;
    }
}

[JsonSourceGenerationOptions(WriteIndented = true, PropertyNamingPolicy = JsonKnownNamingPolicy.CamelCase)]
[JsonSerializable(typeof(StartupBaseline))]
internal sealed partial class BaselineJson : JsonSerializerContext;
