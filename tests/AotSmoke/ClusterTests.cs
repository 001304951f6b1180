using Prewire.Testing;

namespace Prewire.AotSmoke;

/// <summary>A three-node RabbitMQ cluster of the tests' own on loopback, amqp and amqps (build/broker.sh cluster --tls).</summary>
public sealed class OwnCluster : IAsyncLifetime
{
    public BrokerCluster Cluster { get; private set; } = null!;

    public async ValueTask InitializeAsync() =>
        Cluster = await BrokerCluster.StartAsync(Path.Combine(Repo.Artifacts, "test-broker", $"cluster-{Guid.NewGuid():N}"), tls: true);

    public ValueTask DisposeAsync() => Cluster.DisposeAsync();
}

/// <summary>
/// Outgrowing one broker: both apps given the three nodes, a quorum queue replicated on all of them;
/// the node they are connected to stops mid-run, they fail over to another, and every message
/// confirmed is consumed; over amqp and over amqps (a cluster that requires TLS). NativeAOT on linux-x64 (the failover is the client's logic, the same code on
/// both RIDs; three nodes and qemu on two cores would time the machine, not the apps).
/// </summary>
public sealed class ClusterTests(PublishedApps published, OwnCluster own) : IClassFixture<OwnCluster>
{
    public static TheoryData<string, bool> EachClientOverEach => new() { { "RabbitMQ.Client", false }, { "Prewire", false }, { "RabbitMQ.Client", true }, { "Prewire", true } };

    [Theory]
    [MemberData(nameof(EachClientOverEach))]
    public async Task Stopping_the_node_the_apps_use_fails_them_over_and_every_confirmed_message_is_consumed(string client, bool tls)
    {
        const string rid = "linux-x64";
        var cluster = own.Cluster;
        // Over TLS the apps have the amqps:// nodes and the CA; pika reads the queues back over amqp.
        var nodes = tls ? cluster.TlsUris : cluster.Uris;
        var apps = tls ? new BrokerApps(published, rid, cluster.Uri, (string.Join(',', nodes), cluster.CaFile!)) : new BrokerApps(published, rid, cluster.Uri);
        var (queue, count) = ($"aotsmoke.cluster.{Guid.NewGuid():N}", 20_000);
        await using var consume = await apps.StartAsync(App.Consumer, queue, count, "--log-level", "Debug");
        await consume.WaitForReadyAsync(AppRuns.ReadyTimeout(rid));
        // At most 2,000 a second: 10 s of publishing, the node stopped after 1 s of it.
        await using var publish = await apps.StartAsync(App.Publisher, queue, count, ["--concurrency", "8", "--rate", "2000", .. Rids.ClientArguments(client)]);
        await publish.WaitForReadyAsync(AppRuns.ReadyTimeout(rid));
        // Both connect to the first node that answers: node 1.
        Assert.Contains($"Connected to {Redacted(nodes[0])}", publish.Stdout, StringComparison.Ordinal);

        await Task.Delay(1_000, TestContext.Current.CancellationToken);
        // Paused while rabbitmqctl boots and stops the node, the Publisher is mid-run when it goes, however
        // long that takes (BrokerFailureTests: 9 s once, longer than the rest of the run).
        await publish.PausedDuringAsync(() => cluster.CtlAsync(1, "stop_app"));
        try
        {
            await BrokerApps.AssertExitsAsync(publish, 0, TimeSpan.FromMinutes(3));
            await BrokerApps.AssertExitsAsync(consume, 0, TimeSpan.FromMinutes(3));
        }
        finally
        {
            await cluster.CtlAsync(1, "start_app");
        }

        Assert.Contains($"Reconnected to {Redacted(nodes[1])}", publish.Stdout, StringComparison.Ordinal);
        Assert.Contains($"Reconnected to {Redacted(nodes[1])}", consume.Stdout, StringComparison.Ordinal);
        Assert.Equal(count, BrokerApps.Confirmed(publish.Stdout));
        Assert.Equal(count, BrokerApps.Acknowledged(consume.Stdout, count));
        Assert.Equal("", consume.Stderr);
        // Read back, not taken from the apps' counts: count distinct ids handled, both queues empty (pika).
        Assert.Equal(count, BrokerApps.HandledIds(consume.Stdout).Distinct().Count());
        await apps.AssertQueuesEmptyAsync(queue);
    }

    // How the apps print a node: without its credentials (the test's own spelling, not the apps' parser).
    private static string Redacted(string uri)
    {
        var node = new Uri(uri);
        return $"{node.Scheme}://{node.Host}:{node.Port}{node.AbsolutePath}";
    }
}
