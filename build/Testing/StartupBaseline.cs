using System.Globalization;
using System.Text.Json;
using System.Text.Json.Serialization;

namespace Prewire.Testing;

/// <summary>
/// One app × RID as recorded: median spawn-to-ready without a broker and, for the broker apps, with
/// one (connect, channel, queue declared), the AOT binary's size, and on the host RID the same app's
/// JIT build's start-up, measured alternately with the AOT one: the host's speed when recorded.
/// </summary>
public sealed record BaselineEntry(string App, string Rid, double StartupMs, double? StartupWithBrokerMs, long BinaryBytes, double? JitStartupMs = null);

/// <summary>
/// The committed start-up and size baseline (build/startup-baseline.json), and the rules a
/// measurement is held to. `./build.sh baseline` re-records it on purpose; nothing loosens it silently.
/// </summary>
public sealed class StartupBaseline
{
    /// <summary>Size is deterministic for one toolchain: 2 %, as aspnet/Benchmarks flags AOT size regressions.</summary>
    public const double SizeTolerance = 0.02;

    /// <summary>
    /// Start-up on a noisy 2-core machine (a build beside the tests more than doubles it): fail only
    /// past 3x the recorded median natively, 5x under qemu. Catches a start that does real work
    /// before ready (a connect, a scan, JIT fallback), not a few milliseconds.
    /// </summary>
    public const double NativeTimeFactor = 3;

    /// <inheritdoc cref="NativeTimeFactor"/>
    public const double EmulatedTimeFactor = 5;

    /// <summary>
    /// And only past this many ms over the recorded median (1 s under qemu): a 4 ms start tripled by
    /// a busy machine is noise, not a regression. The JIT ratio below still catches a slow AOT start.
    /// </summary>
    public const double NativeSlackMs = 15;

    /// <inheritdoc cref="NativeSlackMs"/>
    public const double EmulatedSlackMs = 1000;

    /// <summary>
    /// How much slower than when recorded a host may be taken to be: the time limits above are
    /// stretched by the JIT build's slowdown in the same run (its start-up against the recorded one),
    /// at least 1x and at most this. A busy or slower CI host slows the JIT build too (measured there:
    /// 2-2.5x, with the AOT figures up to 3.5x theirs); a regression of the AOT build alone does not.
    /// </summary>
    public const double MaxHostSlowdown = 4;

    /// <summary>
    /// JIT start / AOT start of the same app in the same run, host RID only: 9x (HttpEndpoint) to 17x
    /// (consoles) when recorded; load slows both builds, so the ratio holds where absolute times do not.
    /// </summary>
    public const double JitRatioFloor = 4;

    public static string FilePath => Path.Combine(Repo.Root, "build", "startup-baseline.json");

    /// <summary>What the figures were recorded with and how, for whoever reads the file.</summary>
    public required string RecordedWith { get; init; }

    public required IReadOnlyList<BaselineEntry> Entries { get; init; }

    public static StartupBaseline Read() =>
        JsonSerializer.Deserialize(File.ReadAllText(FilePath), BaselineJson.Default.StartupBaseline)
        ?? throw new InvalidDataException($"{FilePath} is empty");

    public void Write() => File.WriteAllText(FilePath, JsonSerializer.Serialize(this, BaselineJson.Default.StartupBaseline) + "\n");

    /// <summary>What moved beyond its tolerance, each saying from what to what; empty when nothing did.</summary>
    public IReadOnlyList<string> Check(BaselineEntry measured)
    {
        ArgumentNullException.ThrowIfNull(measured);
        var failures = new List<string>();
        var name = $"{measured.App} {measured.Rid}";
        var recorded = Entries.FirstOrDefault(e => e.App == measured.App && e.Rid == measured.Rid);
        if (recorded is null)
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

        var slowdown = recorded.JitStartupMs is { } jitWas && measured.JitStartupMs is { } jitNow
            ? Math.Clamp(jitNow / jitWas, 1, MaxHostSlowdown)
            : 1;
        CheckTime("start-up", recorded.StartupMs, measured.StartupMs);
        if (recorded.StartupWithBrokerMs is { } was && measured.StartupWithBrokerMs is { } now) CheckTime("start-up with the broker", was, now);

        if (measured.JitStartupMs is { } jit && jit / measured.StartupMs < JitRatioFloor)
        {
            failures.Add(string.Create(CultureInfo.InvariantCulture, $"{name}: the JIT build started in {jit:0.0} ms, only {jit / measured.StartupMs:0.0}x the AOT build's {measured.StartupMs:0.0} ms (floor {JitRatioFloor:0}x)"));
        }
        return failures;

        void CheckTime(string figure, double was, double now)
        {
            var (factor, slack) = Qemu.Emulates(measured.Rid) ? (EmulatedTimeFactor, EmulatedSlackMs) : (NativeTimeFactor, NativeSlackMs);
            if (now <= was * factor * slowdown || now - was <= slack * slowdown) return;
            var host = slowdown > 1 ? $", stretched {slowdown:0.0}x for a host slower than when recorded (its JIT build {measured.JitStartupMs:0.0} ms against {recorded.JitStartupMs:0.0})" : "";
            failures.Add(string.Create(CultureInfo.InvariantCulture, $"{name}: {figure} went from {was:0.0} ms to {now:0.0} ms, more than {factor * slowdown:0.0}x the baseline and {slack * slowdown:0} ms over it{host}{(Qemu.Emulates(measured.Rid) ? " (under qemu)" : "")}"));
        }
    }
}

[JsonSourceGenerationOptions(WriteIndented = true, PropertyNamingPolicy = JsonKnownNamingPolicy.CamelCase)]
[JsonSerializable(typeof(StartupBaseline))]
internal sealed partial class BaselineJson : JsonSerializerContext;
