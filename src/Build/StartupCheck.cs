using System.Globalization;
using System.Text.RegularExpressions;

namespace Prewire.Build;

/// <summary>
/// Holds an app's start to its baseline, or records it. What is held is the app's excess over the
/// package's NativeAOT floor (a hello world published for the same RID in the same publish), never the
/// app's own figure, so a slower or busier host moves both and only the app's own work shows.
/// </summary>
/// <remarks>
/// Instructions (natively, with valgrind) are the work a start does, the same under any load, so
/// their tolerance is tight. The wall clock is kept for what they cannot see (a sleep, a wait): the
/// least time of many alternating pairs, as wide as it must be not to fail an unchanged app under load;
/// natively only the part of it off the CPU, so that a host slower that day does not read as a wait.
/// </remarks>
internal static class StartupCheck
{
    // Timed measurements at most before a failure stands, each with more pairs: the least of more runs
    // only comes down, so a regression fails every one, while a run a busy host preempted gives way.
    // Fewer under qemu, where a run takes 0.3-2 s.
    private const int MaxMeasurements = 10, MaxEmulatedMeasurements = 3;

    // Counted runs of each binary, the least kept (waits can only add spinning).
    private const int CountedRuns = 3;

    // Measurements of a recording with the app under the floor before it is refused.
    private const int MaxRecordings = 3;

    /// <summary>The verb as the targets run it.</summary>
    public static async Task<(bool Passed, IReadOnlyList<string> Lines)> RunAsync(Options options, bool record)
    {
        var (app, rid, baseline) = (options.Required("--app"), options.Required("--rid"), options.Required("--baseline"));
        var pattern = options.Text("--ready");
        var ready = pattern.Length > 0 ? new Regex(pattern, RegexOptions.None, TimeSpan.FromSeconds(1)) : null;
        var arguments = options.Text("--args").Split(' ', StringSplitOptions.RemoveEmptyEntries);
        var appRun = new StartupCommand(Existing(options.Required("--binary")), arguments, ready, rid);
        var floorRun = new StartupCommand(Existing(options.Required("--floor")), [], null, rid);
        // 60 pairs natively put a start's least within 0.3 ms of its idle figure beside a build (2 cores).
        var pairs = (int)options.Number("--pairs", appRun.Emulated ? 5 : 60);
        var counts = options.Optional("--instructions") != "false" && !appRun.Emulated;
        var name = $"{app} {rid}";
        try
        {
            // The entry first: a check without one fails at once rather than after a minute of runs.
            var recorded = record ? null : RidFile<StartupEntry>.Read(baseline, BaselineJson.Default.RidFileStartupEntry)?.Find(rid);
            if (!record && recorded is null)
                return (false, [$"Start-up gate: {baseline} has no entry for {rid}; {Rerecord(rid)}"]);
            var figure = ready is null ? "spawn to exit" : "spawn to ready";
            if (recorded is null) return await RecordAsync(appRun, floorRun, pairs, counts, figure, baseline, name, options).ConfigureAwait(false);
            var measured = await MeasureAsync(appRun, floorRun, pairs, counts, figure).ConfigureAwait(false);
            if (recorded.Figure != measured.Figure)
                return (false, [$"Start-up gate: {name} was recorded {recorded.Figure} and is measured {measured.Figure} now (PrewireStartupReadyPattern changed); {Rerecord(rid)}"]);
            var failures = CheckInstructions(recorded, measured, options);
            for (var i = 1; i < (appRun.Emulated ? MaxEmulatedMeasurements : MaxMeasurements) && TimeFailure(recorded, measured, options) is not null; i++)
                measured = Least(measured, await MeasureAsync(appRun, floorRun, pairs, counts: false, measured.Figure).ConfigureAwait(false));
            if (TimeFailure(recorded, measured, options) is { } slow) failures.Add(slow);
            return failures.Count == 0
                ? (true, [$"Start-up gate: {name} holds: {Describe(measured)} (recorded: {Describe(recorded)})."])
                : (false, [.. failures.Select(f => $"Start-up gate: {name} {f}; if that is intended, {Rerecord(rid)}")]);
        }
        catch (GateException e)
        {
            return (false, [$"Start-up gate: {name}: {e.Message}"]);
        }
    }

    // A record whose held excess is below zero by more than the least allowance is one the host spoiled
    // (under qemu, -166 ms for an app 73 ms over the floor, which then failed its unchanged check): measured
    // anew, not joined (the least of both would keep it), and after MaxRecordings nothing is written. Within
    // the allowance it is noise an app as small as the floor shows natively (a 1.2 MB service: 0.14 ms under
    // the floor's 2.69, 0.06 ms less off the CPU, 15,940 instructions more) and is recorded.
    private static async Task<(bool Passed, IReadOnlyList<string> Lines)> RecordAsync(StartupCommand app, StartupCommand floor, int pairs, bool counts, string figure, string baseline, string name, Options options)
    {
        var measured = await MeasureAsync(app, floor, pairs, counts, figure).ConfigureAwait(false);
        for (var i = 1; Held(measured, measured, options) is var (_, excess, rule) && excess < -rule.Ms; i++)
        {
            if (i == MaxRecordings)
            {
                return (false, [string.Create(CultureInfo.InvariantCulture,
                    $"Start-up gate: {name}: the app measured more than {rule.Ms:0.00} ms under the NativeAOT floor {MaxRecordings} times, last {Describe(measured)}; this host is not fit to record times on, nothing written")]);
            }
            measured = await MeasureAsync(app, floor, pairs, counts, figure).ConfigureAwait(false);
        }
        RidFile<StartupEntry>.Record(baseline, measured, BaselineJson.Default.RidFileStartupEntry);
        return (true, [$"Start-up gate: recorded {name} in {baseline}: {Describe(measured)}."]);
    }

    private static async Task<StartupEntry> MeasureAsync(StartupCommand app, StartupCommand floor, int pairs, bool counts, string figure)
    {
        long? appCount = null, floorCount = null;
        if (counts)
        {
            if (!StartupInstruments.CanCount)
                throw new GateException("counting instructions needs valgrind and taskset (Debian: valgrind, util-linux); or publish with -p:PrewireStartupInstructions=false");
            // Counts do not move with load: the runs go side by side.
            var runs = await Task.WhenAll(Enumerable.Range(0, CountedRuns).SelectMany(_ => new[] { StartupRuns.CountAsync(app), StartupRuns.CountAsync(floor) })).ConfigureAwait(false);
            (appCount, floorCount) = (runs.Where((_, i) => i % 2 == 0).Min(), runs.Where((_, i) => i % 2 == 1).Min());
        }
        var (floorTime, appTime) = await StartupInstruments.LeastOfPairsAsync(() => StartupRuns.TimeAsync(floor), () => StartupRuns.TimeAsync(app), pairs).ConfigureAwait(false);
        return new StartupEntry(app.Rid, figure, Math.Round(floorTime.Ms, 3), Math.Round(appTime.Ms, 3), floorCount, appCount, Round(floorTime.OffCpuMs), Round(appTime.OffCpuMs));
    }

    private static double? Round(double? ms) => ms is { } value ? Math.Round(value, 3) : null;

    private static StartupEntry Least(StartupEntry a, StartupEntry b)
    {
        var floor = StartupTime.Least(new(a.FloorMs, a.FloorOffCpuMs), new(b.FloorMs, b.FloorOffCpuMs));
        var app = StartupTime.Least(new(a.AppMs, a.AppOffCpuMs), new(b.AppMs, b.AppOffCpuMs));
        return a with { FloorMs = floor.Ms, AppMs = app.Ms, FloorOffCpuMs = floor.OffCpuMs, AppOffCpuMs = app.OffCpuMs };
    }

    // Either way: a count that fell past the tolerance is a gain to lock in by re-recording.
    private static List<string> CheckInstructions(StartupEntry recorded, StartupEntry measured, Options options)
    {
        if (recorded.ExcessInstructions is not { } was) return [];
        if (measured.ExcessInstructions is not { } now) return ["was counted in instructions when recorded and is not now"];
        var allowed = Math.Max(was * options.Number("--instruction-tolerance", 1) / 100, options.Number("--instruction-slack", 20_000));
        return Math.Abs(now - was) <= allowed ? [] : [string.Create(CultureInfo.InvariantCulture,
            $"executed {now:N0} instructions beyond the NativeAOT floor ({measured.Figure}), {was:N0} when recorded: {now - was:+#,0;-#,0} (allowed {allowed:N0} either way); today the floor {measured.FloorInstructions:N0} and the app {measured.AppInstructions:N0}")];
    }

    // Natively, where the record has it, the time off the CPU (StartupAllowance.OffCpu): the work, faults
    // included, is held in instructions, and its time follows the host's speed that day. Under qemu, or
    // against a record from before, the whole excess scaled to the recorded floor.
    private static string? TimeFailure(StartupEntry recorded, StartupEntry measured, Options options)
    {
        var (offCpu, was, rule) = Held(recorded, measured, options);
        if (offCpu)
        {
            var now = measured.ExcessOffCpuMs!.Value;
            var allowedOff = rule.AllowedMs(recorded.FloorMs, was);
            return now - was <= allowedOff ? null : string.Create(CultureInfo.InvariantCulture,
                $"spent {now:0.00} ms more off the CPU than the NativeAOT floor ({measured.Figure}), {was:0.00} ms when recorded (allowed +{allowedOff:0.00} ms): a sleep or a wait, not work; today the floor {measured.FloorOffCpuMs:0.00} of {measured.FloorMs:0.00} ms and the app {measured.AppOffCpuMs:0.00} of {measured.AppMs:0.00} ms");
        }
        var allowed = rule.AllowedMs(recorded.FloorMs, was);
        var scaled = StartupAllowance.ScaledExcessMs(recorded.FloorMs, measured.FloorMs, measured.ExcessMs);
        return scaled - was <= allowed ? null : string.Create(CultureInfo.InvariantCulture,
            $"took {scaled:0.00} ms beyond the NativeAOT floor ({measured.Figure}, scaled to the recorded floor), {was:0.00} ms when recorded (allowed +{allowed:0.00} ms); today the floor {measured.FloorMs:0.00} ms and the app {measured.AppMs:0.00} ms");
    }

    // The recorded excess the timed check holds, and its rule (the defaults of StartupAllowance, each
    // settable from the project): off the CPU natively where both have it, else the whole excess.
    private static (bool OffCpu, double ExcessMs, StartupAllowance Rule) Held(StartupEntry recorded, StartupEntry measured, Options options)
    {
        var emulated = measured.Rid != StartupCommand.HostRid;
        var offCpu = !emulated && recorded.ExcessOffCpuMs is not null && measured.ExcessOffCpuMs is not null;
        var rule = offCpu ? StartupAllowance.OffCpu : StartupAllowance.For(emulated);
        rule = new(options.Number("--allowance-ms", rule.Ms), options.Number("--allowance-floor-percent", rule.FloorPercent), options.Number("--allowance-percent", rule.SharePercent));
        return (offCpu, offCpu ? recorded.ExcessOffCpuMs!.Value : recorded.ExcessMs, rule);
    }

    private static string Describe(StartupEntry entry) => string.Create(CultureInfo.InvariantCulture,
        $"{entry.Figure} {entry.AppMs:0.00} ms against the floor's {entry.FloorMs:0.00} ms{(entry.ExcessOffCpuMs is { } off ? $" ({off:0.00} ms more off the CPU)" : "")}{(entry.ExcessInstructions is { } excess ? $", {excess:N0} instructions beyond it" : "")}");

    private static string Rerecord(string rid) => $"re-record it with: dotnet publish -r {rid} -p:PublishAot=true -p:PrewireRecord=true";

    private static string Existing(string path) => File.Exists(path) ? path : throw new UsageException($"{path} does not exist");
}
