using Prewire.Testing;

namespace Prewire.AotSmoke;

/// <summary>
/// benchmarks/rolling-restart.sh, shorter: every app instance and every node of a three-node cluster
/// restarted in turn under a steady load, and every message answered 202 handled by a Consumer
/// (read by id from the handler's lines; the queues read empty by pika). NativeAOT, linux-x64 (three
/// nodes and four apps under qemu on two cores would time the machine, not the apps).
/// </summary>
public sealed class RollingRestartTests(PublishedApps published)
{
    [Fact]
    public async Task A_rolling_restart_of_every_instance_and_node_under_load_loses_no_accepted_message()
    {
        const string rid = "linux-x64";
        var (endpoint, consumer) = (await published.GetSucceededAsync(App.HttpEndpoint, rid), await published.GetSucceededAsync(App.Consumer, rid));
        var log = new StringWriter();

        var result = await RollingRestart.RunAsync(endpoint.ExecutablePath, consumer.ExecutablePath, TimeSpan.FromSeconds(30), rate: 100, log, TestContext.Current.CancellationToken);

        result.Write(log);
        TestContext.Current.TestOutputHelper?.WriteLine(log.ToString());
        Assert.True(result.Passed, log.ToString());
        // The load ran the whole time: 100 a second for at least 30 s, each accepted once.
        Assert.InRange(result.Accepted, 3_000, int.MaxValue);
        Assert.Equal(0, result.Lost);
    }
}
