using System.Text;
using Prewire.Testing;

namespace Prewire.AotSmoke;

/// <summary>
/// Each app published NativeAOT with <c>-p:PrewireAmqpClient=Prewire</c>, for each RID: no
/// RabbitMQ.Client in it, no warning, and messages moved end to end by Prewire's own client, read back
/// from the broker by pika. The consoles are within 6.5 MB with TLS (the runtime's certificate-download
/// HTTP client left out, samples/NoCertificateDownloads.xml) and move messages over amqps; built without
/// TLS as well (<c>-p:PrewireTls=false</c>) they refuse amqps in one line.
/// </summary>
public sealed class PrewireClientTests(PublishedApps published)
{
    // The console goal for an app built without RabbitMQ.Client (linux-x64).
    private const long ConsoleLimit = 6_815_744; // 6.5 MiB

    public static TheoryData<string, string> AppsByRid => Rids.AppsByRid();

    public static TheoryData<string> EachRid => Rids.Each();

    [Theory]
    [MemberData(nameof(AppsByRid))]
    public async Task Built_without_RabbitMQ_Client_an_app_holds_none_of_it_and_warns_of_nothing(string appName, string rid)
    {
        var app = App.Named(appName);
        var result = await published.GetSucceededAsync(app, rid, PublishMode.AotPrewireClient);

        Assert.DoesNotContain(result.TrimWarnings, w => !w.IsPackage);
        Assert.True(result.GateFailures.Count == 0, string.Join('\n', result.GateFailures));
        Assert.Equal([app.ExecutableName], Directory.GetFiles(result.Directory).Select(Path.GetFileName));
        var binary = await File.ReadAllBytesAsync(result.ExecutablePath, TestContext.Current.CancellationToken);
        // NativeAOT keeps the names of the types and assemblies it compiled in, in UTF-8 (the default build's
        // Consumer holds "RabbitMQ.Client" 5 times, "Prewire.RabbitMQ" 3 times): none here. Not UTF-16: that
        // is string literals, and the usage error names RabbitMQ.Client to say it is not there.
        foreach (var name in new[] { "RabbitMQ.Client", "Prewire.RabbitMQ" })
            Assert.True(binary.AsSpan().IndexOf(Encoding.UTF8.GetBytes(name)) < 0, $"{app} holds \"{name}\"");
        TestContext.Current.TestOutputHelper?.WriteLine($"{app} {rid}: {result.Size:N0} bytes built without RabbitMQ.Client");
    }

    public static TheoryData<string> Consoles => [App.Publisher.Name, App.Consumer.Name];

    [Theory]
    [MemberData(nameof(Consoles))]
    public async Task Built_without_RabbitMQ_Client_a_console_with_TLS_is_within_6_5_MB(string appName)
    {
        var app = App.Named(appName);
        var result = await published.GetSucceededAsync(app, Repo.HostRid, PublishMode.AotPrewireClient);
        Assert.True(result.Size <= ConsoleLimit, $"{app} is {result.Size:N0} bytes built without RabbitMQ.Client, with TLS; the goal is {ConsoleLimit:N0}");
        TestContext.Current.TestOutputHelper?.WriteLine($"{app}: {result.Size:N0} bytes built without RabbitMQ.Client, with TLS");
    }

    [Theory]
    [MemberData(nameof(EachRid))]
    public async Task Built_without_RabbitMQ_Client_the_consoles_move_every_message_over_amqps_and_fetch_no_certificate(string rid)
    {
        var (count, queue, broker) = (Rids.Scaled(rid, 2_000), $"prewire.own-client-tls.{rid}.{Guid.NewGuid():N}", TestBroker.Uri.ToString());
        var publisher = await published.GetSucceededAsync(App.Publisher, rid, PublishMode.AotPrewireClient);
        var consumer = await published.GetSucceededAsync(App.Consumer, rid, PublishMode.AotPrewireClient);
        string[] overTls = ["--uri", TestBroker.TlsUri.ToString(), "--ca-file", Path.Combine(TestBroker.TlsDirectory, "ca.pem")];

        await using (var publish = AppProcess.Start(publisher.ExecutablePath, [.. overTls, "--queue", queue, "--count", $"{count}", "--concurrency", "8"], rid: rid))
            await BrokerApps.AssertExitsAsync(publish, 0, TimeSpan.FromMinutes(3));
        Assert.Equal(count, await Pika.CountAsync(broker, queue));
        await using (var consume = AppProcess.Start(consumer.ExecutablePath, [.. overTls, "--queue", queue, "--count", $"{count}"], rid: rid))
            await BrokerApps.AssertExitsAsync(consume, 0, TimeSpan.FromMinutes(3));
        Assert.Equal(0, await Pika.CountAsync(broker, queue));
        Assert.Equal(0, await Pika.CountAsync(broker, $"{queue}.dead-letter"));

        // A chain whose intermediate is only named (AIA): refused in one line, nothing fetched (the binary
        // has no HTTP client to fetch with: asked to, it would fail otherwise).
        await using var peer = await TlsRefusals.ArrangeAsync("an intermediate it does not send");
        await using var refused = AppProcess.Start(publisher.ExecutablePath, ["--uri", $"amqps://guest:guest@127.0.0.1:{peer.Port}/", "--ca-file", peer.CaFile!, "--count", "1"], rid: rid);
        Assert.Equal(1, await refused.WaitForExitAsync(AppRuns.ReadyTimeout(rid)));
        var line = Assert.Single(refused.Stderr.Split('\n', StringSplitOptions.RemoveEmptyEntries));
        Assert.Contains(peer.Expected, line, StringComparison.Ordinal);
    }

    [Theory]
    [MemberData(nameof(Consoles))]
    public async Task Built_without_TLS_too_a_console_is_within_6_5_MB_and_refuses_amqps_in_one_line(string appName)
    {
        var app = App.Named(appName);
        var result = await published.GetSucceededAsync(app, Repo.HostRid, PublishMode.AotPrewireClientNoTls);
        Assert.DoesNotContain(result.TrimWarnings, w => !w.IsPackage);
        Assert.True(result.Size <= ConsoleLimit, $"{app} is {result.Size:N0} bytes built without RabbitMQ.Client and TLS; the goal is {ConsoleLimit:N0}");
        var withTls = await published.GetSucceededAsync(app, Repo.HostRid, PublishMode.AotPrewireClient);
        TestContext.Current.TestOutputHelper?.WriteLine($"{app}: {result.Size:N0} bytes without TLS, {withTls.Size:N0} with it");

        await using var run = AppProcess.Start(result.ExecutablePath, ["--uri", TestBroker.TlsUri.ToString(), "--count", "1"]);
        Assert.Equal(1, await run.WaitForExitAsync(TimeSpan.FromSeconds(30)));
        var line = Assert.Single(run.Stderr.Split('\n', StringSplitOptions.RemoveEmptyEntries));
        Assert.Contains("this build has no TLS", line, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Asked_for_RabbitMQ_Client_a_build_without_it_says_so_in_one_line_and_exits_2()
    {
        var result = await published.GetSucceededAsync(App.Consumer, Repo.HostRid, PublishMode.AotPrewireClient);
        await using var run = AppProcess.Start(result.ExecutablePath, ["--client", "rabbitmq", "--uri", TestBroker.Uri.ToString(), "--count", "1"]);

        Assert.Equal(2, await run.WaitForExitAsync(TimeSpan.FromSeconds(30)));
        var line = Assert.Single(run.Stderr.Split('\n', StringSplitOptions.RemoveEmptyEntries));
        Assert.Contains("--client rabbitmq: this build has no RabbitMQ.Client", line, StringComparison.Ordinal);
    }

    [Theory]
    [MemberData(nameof(EachRid))]
    public async Task Publisher_and_Consumer_built_without_RabbitMQ_Client_move_every_message_through_the_broker(string rid)
    {
        var queue = $"prewire.own-client.{rid}.{Guid.NewGuid():N}";
        var count = Rids.Scaled(rid, 2_000);
        var broker = TestBroker.Uri.ToString();
        var publisher = await published.GetSucceededAsync(App.Publisher, rid, PublishMode.AotPrewireClient);
        var consumer = await published.GetSucceededAsync(App.Consumer, rid, PublishMode.AotPrewireClient);

        await using (var publish = AppProcess.Start(publisher.ExecutablePath, ["--uri", broker, "--queue", queue, "--count", $"{count}", "--concurrency", "8", "--size", "3000"], rid: rid))
            await BrokerApps.AssertExitsAsync(publish, 0, TimeSpan.FromMinutes(3));
        // Read from the queue itself, by a client not written here: every confirmed message is there.
        Assert.Equal(count, await Pika.CountAsync(broker, queue));

        await using (var consume = AppProcess.Start(consumer.ExecutablePath, ["--uri", broker, "--queue", queue, "--count", $"{count}", "--concurrency", "4"], rid: rid))
            await BrokerApps.AssertExitsAsync(consume, 0, TimeSpan.FromMinutes(3));
        // Every one taken and acknowledged, none dead-lettered.
        Assert.Equal(0, await Pika.CountAsync(broker, queue));
        Assert.Equal(0, await Pika.CountAsync(broker, $"{queue}.dead-letter"));
    }
}
