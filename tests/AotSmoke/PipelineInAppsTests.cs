using Prewire.Harness;

namespace Prewire.AotSmoke;

/// <summary>The apps' pipelines in the real binaries: through a real broker, described, and built both ways.</summary>
public sealed class PipelineInAppsTests(PublishedApps published)
{
    [Theory]
    [InlineData("RabbitMQ.Client")]
    [InlineData("AmqpPublisher")]
    public async Task Publisher_and_consumer_move_messages_through_the_broker_with_confirms_and_acks(string client)
    {
        var broker = Repo.BrokerUri();
        Assert.True(broker is not null, "no broker: run the tests through ./build.sh test, which starts one");
        var queue = $"aotsmoke.{Guid.NewGuid():N}";
        var publisher = await published.GetSucceededAsync(App.Publisher, Repo.HostRid);
        var consumer = await published.GetSucceededAsync(App.Consumer, Repo.HostRid);
        string[] clientFlag = client == "AmqpPublisher" ? ["--amqp-publisher"] : [];

        await using (var publish = AppProcess.Start(publisher.ExecutablePath, ["--uri", broker, "--queue", queue, "--count", "200", .. clientFlag]))
        {
            Assert.Equal(0, await publish.WaitForExitAsync(TimeSpan.FromSeconds(60)));
            Assert.Contains($"Published 200 messages to {queue}, each confirmed", publish.Stdout, StringComparison.Ordinal);
            Assert.Contains($"(prewired pipeline, {client})", publish.Stdout, StringComparison.Ordinal);
        }

        await using var consume = AppProcess.Start(consumer.ExecutablePath, ["--uri", broker, "--queue", queue, "--count", "200"]);
        Assert.Equal(0, await consume.WaitForExitAsync(TimeSpan.FromSeconds(60)));
        Assert.Contains($"Handled and acknowledged 200 messages from {queue}", consume.Stdout, StringComparison.Ordinal);
        Assert.Equal("", consume.Stderr);
    }

    [Theory]
    [InlineData("Publisher", "Pipeline<OutgoingLogicalContext> (prewired, 4 steps)")]
    [InlineData("Consumer", "Pipeline<TransportReceiveContext> (prewired, 3 steps)")]
    public async Task The_AOT_binary_describes_its_prewired_pipeline(string appName, string expected)
    {
        var result = await published.GetSucceededAsync(App.Named(appName), Repo.HostRid);
        await using var process = AppProcess.Start(result.ExecutablePath, ["--describe"]);

        Assert.Equal(0, await process.WaitForExitAsync(AppRuns.ExitTimeout));
        Assert.StartsWith(expected, process.Stdout, StringComparison.Ordinal);
    }

    [Fact]
    public async Task The_expression_tree_builder_is_selected_by_one_property_for_JIT_builds_and_refused_for_AOT()
    {
        var app = App.Publisher;
        var projectDirectory = Path.Combine(Repo.Root, app.ProjectDirectory);
        var jit = await Publishing.PublishProjectAsync(app, projectDirectory, Repo.HostRid, PublishMode.Jit,
            ["-p:PipelineBuilder=ExpressionTree", "--self-contained", "true"],
            Path.Combine(Repo.Artifacts, "publish", Repo.HostRid, "jit-expression-tree", app.Name), TestContext.Current.CancellationToken);
        Assert.True(jit.Succeeded, jit.Errors);

        await using (var process = AppProcess.Start(jit.ExecutablePath, ["--describe"]))
        {
            Assert.Equal(0, await process.WaitForExitAsync(AppRuns.ExitTimeout));
            Assert.StartsWith("Pipeline<OutgoingLogicalContext> (expression-tree, 4 steps)", process.Stdout, StringComparison.Ordinal);
        }

        var aot = await Publishing.PublishProjectAsync(app, projectDirectory, Repo.HostRid, PublishMode.Aot,
            ["-p:PipelineBuilder=ExpressionTree", "-p:PublishAot=true"],
            Path.Combine(Repo.Artifacts, "publish", Repo.HostRid, "aot-expression-tree", app.Name), TestContext.Current.CancellationToken);
        Assert.False(aot.Succeeded);
        Assert.Contains("error PREWIRE021", aot.Output, StringComparison.Ordinal);
    }
}
