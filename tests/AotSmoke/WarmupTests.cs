using System.Globalization;
using Prewire.Testing;

namespace Prewire.AotSmoke;

/// <summary>
/// Warm-up in the real apps (<c>--warmup-report</c>: build the app's pipeline, one message to an
/// in-process sink), three builds of each app run alternately: prewired NativeAOT, prewired JIT and
/// expression-tree JIT. Each assertion compares builds measured in the same run, never a fixed time.
/// </summary>
public sealed class WarmupTests(PublishedApps published)
{
    private const int Runs = 5;

    // All three: the HttpEndpoint's --warmup-report runs its ingress pipeline before Kestrel would start.
    public static TheoryData<string, string> PipelineAppsByRid => Rids.AppsByRid();

    [Theory]
    [MemberData(nameof(PipelineAppsByRid))]
    public async Task The_prewired_builds_warm_up_before_the_expression_tree_build(string appName, string rid)
    {
        var app = App.Named(appName);
        PublishMode[] modes = [PublishMode.Aot, PublishMode.Jit, PublishMode.ExpressionTreeJit];
        var builds = new List<PublishResult>();
        foreach (var mode in modes) builds.Add(await published.GetSucceededAsync(app, rid, mode));

        var runs = modes.Select(_ => new List<WarmupRun>()).ToArray();
        for (var i = 0; i < (Qemu.Emulates(rid) ? 3 : Runs); i++)
        {
            for (var b = 0; b < builds.Count; b++) runs[b].Add(await WarmupRun.TimedAsync(builds[b].ExecutablePath, rid));
        }
        var (aot, jit, expressionTree) = (WarmupRun.Median(runs[0]), WarmupRun.Median(runs[1]), WarmupRun.Median(runs[2]));
        Assert.Equal(("prewired", "prewired", "expression-tree"), (runs[0][0].Builder, runs[1][0].Builder, runs[2][0].Builder));

        TestContext.Current.TestOutputHelper?.WriteLine(string.Create(CultureInfo.InvariantCulture,
            $"{app} {rid}: spawn to first handled message AOT {aot.SpawnToHandledMs:0.0} ms, prewired JIT {jit.SpawnToHandledMs:0.0} ms, expression-tree JIT {expressionTree.SpawnToHandledMs:0.0} ms ({expressionTree.SpawnToHandledMs / aot.SpawnToHandledMs:0.0}x); build + first invoke prewired JIT {jit.BuildAndFirstInvokeMs:0.00} ms, expression-tree JIT {expressionTree.BuildAndFirstInvokeMs:0.00} ms ({expressionTree.BuildAndFirstInvokeMs / jit.BuildAndFirstInvokeMs:0.0}x)"));
        Assert.True(aot.SpawnToHandledMs < expressionTree.SpawnToHandledMs,
            $"prewired AOT handled its first message {aot.SpawnToHandledMs:0.0} ms after spawn, the expression-tree JIT build {expressionTree.SpawnToHandledMs:0.0} ms");
        Assert.True(jit.BuildAndFirstInvokeMs < expressionTree.BuildAndFirstInvokeMs,
            $"prewired JIT built and first invoked in {jit.BuildAndFirstInvokeMs:0.00} ms, the expression-tree JIT build in {expressionTree.BuildAndFirstInvokeMs:0.00} ms");
    }
}
