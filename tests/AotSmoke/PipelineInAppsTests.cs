using ELFSharp.ELF;
using Prewire.Testing;

namespace Prewire.AotSmoke;

/// <summary>The apps' pipelines in the real binaries, on each RID: described, and built both ways (MessagingTests runs them through the broker).</summary>
public sealed class PipelineInAppsTests(PublishedApps published)
{
    public static TheoryData<string, string, string> DescriptionsByRid()
    {
        var data = new TheoryData<string, string, string>();
        foreach (var rid in Rids.All)
        {
            data.Add("Publisher", "Pipeline<OutgoingLogicalContext> (prewired, 4 steps)", rid);
            data.Add("Consumer", "Pipeline<TransportReceiveContext> (prewired, 5 steps)", rid);
        }
        return data;
    }

    public static TheoryData<string> EachRid => Rids.Each();

    [Theory]
    [MemberData(nameof(DescriptionsByRid))]
    public async Task The_AOT_binary_describes_its_prewired_pipeline(string appName, string expected, string rid)
    {
        var result = await published.GetSucceededAsync(App.Named(appName), rid);
        await using var process = AppProcess.Start(result.ExecutablePath, ["--describe"], rid: rid);

        Assert.Equal(0, await process.WaitForExitAsync(AppRuns.ExitTimeout(rid)));
        Assert.StartsWith(expected, process.Stdout, StringComparison.Ordinal);
    }

    [Theory]
    [MemberData(nameof(EachRid))]
    public async Task The_expression_tree_builder_is_selected_by_one_property_for_JIT_builds_and_refused_for_AOT(string rid)
    {
        var app = App.Publisher;
        var projectDirectory = Path.Combine(Repo.Root, app.ProjectDirectory);
        var jit = await published.GetSucceededAsync(app, rid, PublishMode.ExpressionTreeJit);
        using (var elf = ELFReader.Load(jit.ExecutablePath)) Assert.Equal(Elf.MachineFor(rid), elf.Machine);

        await using (var process = AppProcess.Start(jit.ExecutablePath, ["--describe"], rid: rid))
        {
            Assert.Equal(0, await process.WaitForExitAsync(AppRuns.ReadyTimeout(rid)));
            Assert.StartsWith("Pipeline<OutgoingLogicalContext> (expression-tree, 4 steps)", process.Stdout, StringComparison.Ordinal);
        }

        var aot = await Publishing.PublishProjectAsync(app, projectDirectory, rid, PublishMode.Aot,
            ["-p:PipelineBuilder=ExpressionTree", "-p:PublishAot=true"],
            Path.Combine(Repo.Artifacts, "publish", rid, "aot-expression-tree", app.Name), variant: "aot-expression-tree", cancellationToken: TestContext.Current.CancellationToken);
        Assert.False(aot.Succeeded);
        Assert.Contains("error PREWIRE021", aot.Output, StringComparison.Ordinal);
    }
}
