using Prewire.Testing;

namespace Prewire.AotSmoke;

/// <summary>
/// The start-up and size regression gate: each app × RID against build/startup-baseline.json (tolerances
/// in <see cref="StartupBaseline"/>), and on this host against its own JIT build in the same run.
/// `./build.sh baseline` re-records the file on purpose.
/// </summary>
[Collection(nameof(StartupGateTests))]
public sealed class StartupGateTests(PublishedApps published)
{
    private const int Runs = 7;

    public static TheoryData<string, string> AllAppsByRid => Rids.AppsByRid();

    [Theory]
    [MemberData(nameof(AllAppsByRid))]
    public async Task Start_up_and_binary_size_hold_against_the_committed_baseline(string appName, string rid)
    {
        var app = App.Named(appName);
        var aot = await published.GetSucceededAsync(app, rid);
        var native = !Qemu.Emulates(rid);
        var jit = native ? await published.GetSucceededAsync(app, rid, PublishMode.Jit) : null;

        var baseline = StartupBaseline.Read();
        var failures = await MeasureAndCheckAsync();
        // Measured again once before failing: a busy moment of a shared host slowed every run of one
        // measurement here (CI: Consumer 20.9 ms against 5.8 recorded, and its own JIT build 7.6x slower
        // in the same runs), while a regression slows both measurements.
        if (failures.Count > 0) failures = await MeasureAndCheckAsync();
        Assert.True(failures.Count == 0, string.Join('\n', failures));

        async Task<IReadOnlyList<string>> MeasureAndCheckAsync()
        {
            var measured = await StartupRuns.MeasureAsync(app, rid, aot, jit, TestBroker.Uri.ToString(), Runs);
            TestContext.Current.TestOutputHelper?.WriteLine($"{app} {rid}: {measured.StartupMs:0.0} ms, with broker {measured.StartupWithBrokerMs:0.0} ms, {measured.BinaryBytes:N0} B" + (measured.JitStartupMs is { } j ? $", JIT {j:0.0} ms" : " (qemu)"));
            return baseline.Check(measured);
        }
    }
}

/// <summary>Start-up is timed with nothing else of the suite running beside it: xunit runs this collection on its own.</summary>
[CollectionDefinition(nameof(StartupGateTests), DisableParallelization = true)]
public sealed class StartupGateCollection;
