using Prewire.Harness;

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

        var medians = jit is null
            ? await StartupRuns.MediansAsync(app, rid, brokerUri: null, RecordBaseline.RunsFor(rid, Runs), aot.ExecutablePath)
            : await StartupRuns.MediansAsync(app, rid, brokerUri: null, Runs, aot.ExecutablePath, jit.ExecutablePath);
        double? withBroker = app.IsWeb ? null
            : (await StartupRuns.MediansAsync(app, rid, TestBroker.Uri.ToString(), RecordBaseline.RunsFor(rid, Runs), aot.ExecutablePath))[0];
        var measured = new BaselineEntry(app.Name, rid, medians[0], withBroker, aot.Size);
        var failures = StartupBaseline.Read().Check(measured, jit is null ? null : medians[1]);

        TestContext.Current.TestOutputHelper?.WriteLine($"{app} {rid}: {measured.StartupMs:0.0} ms, with broker {withBroker:0.0} ms, {measured.BinaryBytes:N0} B" + (jit is null ? " (qemu)" : $", JIT {medians[1]:0.0} ms"));
        Assert.True(failures.Count == 0, string.Join('\n', failures));
    }
}

/// <summary>Start-up is timed with nothing else of the suite running beside it: xunit runs this collection on its own.</summary>
[CollectionDefinition(nameof(StartupGateTests), DisableParallelization = true)]
public sealed class StartupGateCollection;
