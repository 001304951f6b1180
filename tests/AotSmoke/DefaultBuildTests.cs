using System.Globalization;
using System.Text;
using Prewire.Testing;

namespace Prewire.AotSmoke;

/// <summary>
/// Each app as a plain <c>dotnet publish -r RID -p:PublishAot=true</c> builds it, for each RID: Prewire's
/// client only (no RabbitMQ.Client in it), no warning, within its size budget on linux-x64 (amqps and the
/// OTLP exporter included), and messages moved end to end by Prewire's client, read back from the broker
/// by pika, over amqps without fetching a certificate (the runtime's certificate-download HTTP client is
/// left out, samples/NoCertificateDownloads.xml). Built without the exporter the consoles are within
/// 6.5 MB; without TLS as well they refuse amqps in one line.
/// </summary>
public sealed class DefaultBuildTests(PublishedApps published)
{
    // The budgets of the default build (linux-x64), TLS and the OTLP exporter in: the goals. The consoles'
    // 9.0 MB (Consumer 8,950,048 B, Publisher 8,815,968 B) holds with ILC optimizing them for size; above
    // it: optimized for speed the Consumer is 9,367,440 B, with StackTraceSupport=true 10,858,448 B,
    // without NoWildcardRegex.xml 10,096,848 B (docs/build.md). The HttpEndpoint: 13,805,928 B measured.
    private const long ConsoleLimit = 9_000_000; // 9.0 MB
    private const long HttpEndpointLimit = 14_000_000; // 14.0 MB

    // The consoles built without the OTLP exporter (-p:PrewireTelemetry=false).
    private const long SmallestConsoleLimit = 6_815_744; // 6.5 MiB

    public static TheoryData<string, string> AppsByRid => Rids.AppsByRid();

    public static TheoryData<string> EachRid => Rids.Each();

    public static TheoryData<string> Apps => [.. App.All.Select(a => a.Name)];

    public static TheoryData<string> Consoles => [App.Publisher.Name, App.Consumer.Name];

    [Theory]
    [MemberData(nameof(AppsByRid))]
    public async Task The_default_build_holds_none_of_RabbitMQ_Client_and_warns_of_nothing(string appName, string rid)
    {
        var app = App.Named(appName);
        var result = await published.GetSucceededAsync(app, rid);

        Assert.DoesNotContain(result.TrimWarnings, w => !w.IsPackage);
        Assert.True(result.GateFailures.Count == 0, string.Join('\n', result.GateFailures));
        Assert.Equal([app.ExecutableName], Directory.GetFiles(result.Directory).Select(Path.GetFileName));
        var binary = await File.ReadAllBytesAsync(result.ExecutablePath, TestContext.Current.CancellationToken);
        // NativeAOT keeps the names of the types and assemblies it compiled in, in UTF-8 (the both-clients
        // Consumer holds "RabbitMQ.Client" 5 times, "Prewire.RabbitMQ" 3 times): none here. Not UTF-16: that
        // is string literals, and the usage error names RabbitMQ.Client to say it is not there.
        foreach (var name in new[] { "RabbitMQ.Client", "Prewire.RabbitMQ" })
            Assert.True(binary.AsSpan().IndexOf(Encoding.UTF8.GetBytes(name)) < 0, $"{app} holds \"{name}\"");
        TestContext.Current.TestOutputHelper?.WriteLine($"{app} {rid}: {result.Size:N0} bytes");
    }

    [Theory]
    [MemberData(nameof(AppsByRid))]
    public async Task The_default_build_is_held_by_the_Prewire_Build_packages_gates(string appName, string rid)
    {
        // The package's own lines in the publish output: its warning gate ran, and its size budget held
        // the binary to samples/<app>/size-budget.json (a budget that failed would have failed the publish).
        var app = App.Named(appName);
        var result = await published.GetSucceededAsync(app, rid);
        Assert.Contains($"Warning gate: own assemblies Prewire.Core, Prewire.Samples.Shared, {app.ExecutableName};", result.Output, StringComparison.Ordinal);
        Assert.Contains($"Size budget: {app.ExecutableName} {rid} is {result.Size.ToString("N0", CultureInfo.InvariantCulture)} B", result.Output, StringComparison.Ordinal);
    }

    [Theory]
    [MemberData(nameof(Apps))]
    public async Task The_default_build_is_within_its_size_budget(string appName)
    {
        var app = App.Named(appName);
        var limit = app == App.HttpEndpoint ? HttpEndpointLimit : ConsoleLimit;
        var result = await published.GetSucceededAsync(app, Repo.HostRid);
        Assert.True(result.Size <= limit, $"{app} is {result.Size:N0} bytes as a plain publish builds it (TLS and the OTLP exporter in); the budget is {limit:N0}: ./build.sh size shows what each assembly costs");
        TestContext.Current.TestOutputHelper?.WriteLine($"{app}: {result.Size:N0} bytes of {limit:N0}");
    }

    [Theory]
    [MemberData(nameof(Consoles))]
    public async Task Built_without_the_OTLP_exporter_a_console_with_TLS_is_within_6_5_MB(string appName)
    {
        var app = App.Named(appName);
        var result = await AssertSmallestAsync(app, PublishMode.AotNoTelemetry, "built without the OTLP exporter, with TLS");
        TestContext.Current.TestOutputHelper?.WriteLine($"{app}: {result.Size:N0} bytes without the OTLP exporter, with TLS");
    }

    // A console without the exporter (and TLS, as the mode says): no warning, within 6.5 MiB.
    private async Task<PublishResult> AssertSmallestAsync(App app, PublishMode mode, string built)
    {
        var result = await published.GetSucceededAsync(app, Repo.HostRid, mode);
        Assert.DoesNotContain(result.TrimWarnings, w => !w.IsPackage);
        Assert.True(result.Size <= SmallestConsoleLimit, $"{app} is {result.Size:N0} bytes {built}; the goal is {SmallestConsoleLimit:N0}");
        return result;
    }

    [Theory]
    [MemberData(nameof(EachRid))]
    public async Task The_default_consoles_move_every_message_over_amqps_and_fetch_no_certificate(string rid)
    {
        var (count, queue, broker) = (Rids.Scaled(rid, 2_000), $"prewire.own-client-tls.{rid}.{Guid.NewGuid():N}", TestBroker.Uri.ToString());
        var publisher = await published.GetSucceededAsync(App.Publisher, rid);
        var consumer = await published.GetSucceededAsync(App.Consumer, rid);
        string[] overTls = ["--uri", TestBroker.TlsUri.ToString(), "--ca-file", TestBroker.CaFile];

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
        var result = await AssertSmallestAsync(app, PublishMode.AotNoTelemetryNoTls, "built without the OTLP exporter and TLS");
        var withTls = await published.GetSucceededAsync(app, Repo.HostRid, PublishMode.AotNoTelemetry);
        TestContext.Current.TestOutputHelper?.WriteLine($"{app}: {result.Size:N0} bytes without TLS, {withTls.Size:N0} with it");

        await using var run = AppProcess.Start(result.ExecutablePath, ["--uri", TestBroker.TlsUri.ToString(), "--count", "1"]);
        Assert.Equal(1, await run.WaitForExitAsync(TimeSpan.FromSeconds(30)));
        var line = Assert.Single(run.Stderr.Split('\n', StringSplitOptions.RemoveEmptyEntries));
        Assert.Contains("this build has no TLS", line, StringComparison.Ordinal);
    }

    [Theory]
    [MemberData(nameof(Apps))]
    public async Task Asked_for_RabbitMQ_Client_the_default_build_says_which_property_builds_it_in_one_line_and_exits_2(string appName)
    {
        var result = await published.GetSucceededAsync(App.Named(appName), Repo.HostRid);
        await using var run = AppProcess.Start(result.ExecutablePath, ["--client", "rabbitmq", "--uri", TestBroker.Uri.ToString()]);

        Assert.Equal(2, await run.WaitForExitAsync(TimeSpan.FromSeconds(30)));
        var line = Assert.Single(run.Stderr.Split('\n', StringSplitOptions.RemoveEmptyEntries));
        Assert.Contains("--client rabbitmq: this build has no RabbitMQ.Client (build the app with -p:PrewireAmqpClient=Both for it)", line, StringComparison.Ordinal);
    }

    [Theory]
    [MemberData(nameof(EachRid))]
    public async Task The_default_Publisher_and_Consumer_move_every_message_of_3000_B_through_the_broker(string rid)
    {
        var queue = $"prewire.own-client.{rid}.{Guid.NewGuid():N}";
        var count = Rids.Scaled(rid, 2_000);
        var broker = TestBroker.Uri.ToString();
        var publisher = await published.GetSucceededAsync(App.Publisher, rid);
        var consumer = await published.GetSucceededAsync(App.Consumer, rid);

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
