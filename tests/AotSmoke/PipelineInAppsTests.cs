using Prewire.Harness;

namespace Prewire.AotSmoke;

/// <summary>The apps' pipelines in the real binaries, on each RID: through a real broker, described, and built both ways.</summary>
public sealed class PipelineInAppsTests(PublishedApps published)
{
    public static TheoryData<string, string> ClientsByRid()
    {
        var data = new TheoryData<string, string>();
        foreach (var rid in Rids.All)
            foreach (var client in new[] { "RabbitMQ.Client", "AmqpPublisher" })
                data.Add(client, rid);
        return data;
    }

    public static TheoryData<string, string, string> DescriptionsByRid()
    {
        var data = new TheoryData<string, string, string>();
        foreach (var rid in Rids.All)
        {
            data.Add("Publisher", "Pipeline<OutgoingLogicalContext> (prewired, 4 steps)", rid);
            data.Add("Consumer", "Pipeline<TransportReceiveContext> (prewired, 3 steps)", rid);
        }
        return data;
    }

    public static TheoryData<string> EachRid => Rids.Each();

    [Theory]
    [MemberData(nameof(ClientsByRid))]
    public async Task Publisher_and_consumer_move_messages_through_the_broker_with_confirms_and_acks(string client, string rid)
    {
        var broker = TestBroker.Uri.ToString();
        var queue = $"aotsmoke.{rid}.{Guid.NewGuid():N}";
        var count = Rids.Scaled(rid, 200);
        var publisher = await published.GetSucceededAsync(App.Publisher, rid);
        var consumer = await published.GetSucceededAsync(App.Consumer, rid);
        string[] clientFlag = client == "AmqpPublisher" ? ["--amqp-publisher"] : [];

        await using (var publish = AppProcess.Start(publisher.ExecutablePath, ["--uri", broker, "--queue", queue, "--count", $"{count}", .. clientFlag], rid: rid))
        {
            Assert.Equal(0, await publish.WaitForExitAsync(TimeSpan.FromSeconds(90)));
            Assert.Contains($"Published {count} of {count} messages to {queue}, each confirmed", publish.Stdout, StringComparison.Ordinal);
            Assert.Contains($"(prewired pipeline, {client})", publish.Stdout, StringComparison.Ordinal);
        }

        await using var consume = AppProcess.Start(consumer.ExecutablePath, ["--uri", broker, "--queue", queue, "--count", $"{count}"], rid: rid);
        Assert.Equal(0, await consume.WaitForExitAsync(TimeSpan.FromSeconds(90)));
        Assert.Contains($"Handled and acknowledged {count} of {count} messages from {queue}", consume.Stdout, StringComparison.Ordinal);
        Assert.Equal("", consume.Stderr);
    }

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
        Assert.Equal(ElfHeader.MachineFor(rid), ElfHeader.Read(jit.ExecutablePath).Machine);

        await using (var process = AppProcess.Start(jit.ExecutablePath, ["--describe"], rid: rid))
        {
            Assert.Equal(0, await process.WaitForExitAsync(AppRuns.ReadyTimeout(rid)));
            Assert.StartsWith("Pipeline<OutgoingLogicalContext> (expression-tree, 4 steps)", process.Stdout, StringComparison.Ordinal);
        }

        var aot = await Publishing.PublishProjectAsync(app, projectDirectory, rid, PublishMode.Aot,
            ["-p:PipelineBuilder=ExpressionTree", "-p:PublishAot=true"],
            Path.Combine(Repo.Artifacts, "publish", rid, "aot-expression-tree", app.Name), cancellationToken: TestContext.Current.CancellationToken);
        Assert.False(aot.Succeeded);
        Assert.Contains("error PREWIRE021", aot.Output, StringComparison.Ordinal);
    }
}
