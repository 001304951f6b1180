using Prewire.Testing;

namespace Prewire.AotSmoke;

/// <summary>
/// The start-up and size regression gate: each app × RID against build/startup-baseline.json, every
/// figure as its excess over a NativeAOT hello world started alternately with it (tolerances in
/// <see cref="StartupBaseline"/>). `./build.sh baseline` re-records the file on purpose.
/// </summary>
[Collection(nameof(StartupGateTests))]
public sealed class StartupGateTests(PublishedApps published)
{
    public static TheoryData<string, string> AllAppsByRid => Rids.AppsByRid();

    public static TheoryData<string, double> DelayByRid => new()
    {
        // Natively the smallest regression the gate catches every time (./build.sh gate-sensitivity);
        // under qemu twice its allowance.
        { "linux-x64", 2 },
        { "linux-arm64", 2 * StartupBaseline.EmulatedAllowanceMs },
    };

    [Theory]
    [MemberData(nameof(AllAppsByRid))]
    public async Task Start_up_and_binary_size_hold_against_the_committed_baseline(string appName, string rid)
    {
        var app = App.Named(appName);
        var failures = await CheckAsync(app, rid, await published.GetSucceededAsync(app, rid));
        Assert.True(failures.Count == 0, string.Join('\n', failures));
    }

    [Theory]
    [MemberData(nameof(DelayByRid))]
    public async Task A_Consumer_that_starts_a_few_milliseconds_later_fails_the_gate(string rid, double delayMs)
    {
        var slow = await StartupDelayFixture.PublishAsync(App.Consumer, rid, delayMs, TestContext.Current.CancellationToken);
        Assert.True(slow.Succeeded, slow.Errors);
        var failures = await CheckAsync(App.Consumer, rid, slow);
        Assert.Contains(failures, f => f.Contains(StartupFigure.Names.Ready, StringComparison.Ordinal));
    }

    [Fact]
    public async Task The_gates_runs_start_at_the_raised_priority_where_the_host_allows_it()
    {
        // What the gate standing a saturated host rests on (TimedPriority), read back from the kernel.
        await using var run = AppProcess.Start("/bin/sleep", ["10"], timed: true);
        var expected = TimedPriority.Available ? TimedPriority.Niceness : Niceness(Environment.ProcessId);
        var until = DateTime.UtcNow.AddSeconds(5);
        while (File.ReadAllText($"/proc/{run.Id}/comm").Trim() != "sleep" && DateTime.UtcNow < until) await Task.Delay(10, TestContext.Current.CancellationToken);
        Assert.Equal("sleep", File.ReadAllText($"/proc/{run.Id}/comm").Trim());
        Assert.Equal(expected, Niceness(run.Id));
    }

    // Field 19 of /proc/<pid>/stat; the fields after the command's closing parenthesis start at 3.
    private static int Niceness(int pid)
    {
        var stat = File.ReadAllText($"/proc/{pid}/stat");
        return int.Parse(stat[(stat.LastIndexOf(')') + 2)..].Split(' ')[16], System.Globalization.CultureInfo.InvariantCulture);
    }

    // Measured on until it passes or enough pairs were measured (StartupGate.MaxMeasurements): a busy
    // host preempts some runs of the app and not the floor's, a regression slows every run.
    private async Task<IReadOnlyList<string>> CheckAsync(App app, string rid, PublishResult aot)
    {
        var floor = await published.GetSucceededAsync(App.StartupFloor, rid);
        var (failures, _) = await StartupGate.CheckAsync(StartupBaseline.Read(), app, rid, aot, floor, TestBroker.Uri.ToString(), measured =>
        {
            foreach (var f in measured.Figures)
                TestContext.Current.TestOutputHelper?.WriteLine($"{app} {rid} {f.Name}: floor {f.FloorMs:0.00} ms, app {f.AppMs:0.00} ms, excess {f.ExcessMs:0.00} ms");
        });
        return failures;
    }
}

/// <summary>Start-up is timed with nothing else of the suite running beside it: xunit runs this collection on its own.</summary>
[CollectionDefinition(nameof(StartupGateTests), DisableParallelization = true)]
public sealed class StartupGateCollection;
