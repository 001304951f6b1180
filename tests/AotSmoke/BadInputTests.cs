using Prewire.Testing;

namespace Prewire.AotSmoke;

/// <summary>Bad flags, bad URIs and an unreachable broker: one clear stderr line, no stack trace, the right exit code; on each RID.</summary>
public sealed class BadInputTests(PublishedApps published)
{
    public static TheoryData<string, string> BrokerAppsByRid => Rids.AppsByRid(App.Publisher, App.Consumer);

    public static TheoryData<string, string> AllAppsByRid => Rids.AppsByRid();

    [Theory]
    [MemberData(nameof(AllAppsByRid))]
    public Task Unknown_flag_is_a_usage_error_exit_2(string appName, string rid) =>
        AssertFailsAsync(appName, rid, 2, "--no-such-flag", "--no-such-flag");

    [Theory]
    [MemberData(nameof(BrokerAppsByRid))]
    public Task A_count_that_is_not_a_number_is_a_usage_error_exit_2(string appName, string rid) =>
        AssertFailsAsync(appName, rid, 2, "--count must be a whole number of 0 or more, not 'abc'", "--count", "abc");

    [Theory]
    [MemberData(nameof(AllAppsByRid))]
    public async Task Help_exits_0(string appName, string rid)
    {
        var app = App.Named(appName);
        var result = await published.GetSucceededAsync(app, rid);
        await using var process = AppProcess.Start(result.ExecutablePath, ["--help"], rid: rid);
        Assert.Equal(0, await process.WaitForExitAsync(AppRuns.ExitTimeout(rid)));
        Assert.Contains($"Usage:\n  {app.ExecutableName} [options]", process.Stdout, StringComparison.Ordinal);
    }

    [Theory]
    [MemberData(nameof(BrokerAppsByRid))]
    public async Task Unreachable_broker_exits_1(string appName, string rid)
    {
        using var refusing = new RefusingPort();
        var port = refusing.Port;
        await AssertFailsAsync(appName, rid, 1, $"cannot reach RabbitMQ at amqp://127.0.0.1:{port}/: Connection refused", "--uri", $"amqp://guest:topsecret@127.0.0.1:{port}/");
    }

    public static TheoryData<string, string, string, string> BadUrisByAppAndRid()
    {
        var data = new TheoryData<string, string, string, string>();
        foreach (var rid in Rids.All)
            foreach (var appName in new[] { App.Publisher.Name, App.Consumer.Name })
            {
                data.Add(appName, rid, "http://guest:topsecret@127.0.0.1/", "invalid broker URI (--uri / RABBITMQ_URI): scheme 'http'");
                data.Add(appName, rid, "amqp://", "invalid broker URI (--uri / RABBITMQ_URI): no host");
                data.Add(appName, rid, "", "invalid broker URI (--uri / RABBITMQ_URI): empty");
                data.Add(appName, rid, "amqp://guest:topsecret@no-such-host.invalid/", "cannot reach RabbitMQ at amqp://no-such-host.invalid:5672/");
            }
        return data;
    }

    [Theory]
    [MemberData(nameof(BadUrisByAppAndRid))]
    public Task A_bad_or_unresolvable_uri_exits_1_saying_what_is_wrong(string appName, string rid, string uri, string expected) =>
        AssertFailsAsync(appName, rid, 1, expected, "--uri", uri);

    [Theory]
    [MemberData(nameof(BrokerAppsByRid))]
    public async Task No_node_of_several_answering_exits_1_naming_each(string appName, string rid)
    {
        using RefusingPort refusingFirst = new(), refusingSecond = new();
        var (first, second) = (refusingFirst.Port, refusingSecond.Port);
        await AssertFailsAsync(appName, rid, 1,
            $"no RabbitMQ node of 2 could be used: cannot reach RabbitMQ at amqp://127.0.0.1:{first}/: Connection refused; cannot reach RabbitMQ at amqp://127.0.0.1:{second}/: Connection refused",
            "--uri", $"amqp://127.0.0.1:{first}/,amqp://guest:topsecret@127.0.0.1:{second}/");
    }

    [Theory]
    [MemberData(nameof(BrokerAppsByRid))]
    public Task A_connect_timeout_of_0_is_a_usage_error_exit_2(string appName, string rid) =>
        AssertFailsAsync(appName, rid, 2, "--connect-timeout must be a number of seconds above 0 and at most 86400, not '0'", "--connect-timeout", "0");

    public static TheoryData<string, string, bool> BrokerAppsByClientAndPeer()
    {
        var data = new TheoryData<string, string, bool>();
        foreach (var appName in new[] { App.Publisher.Name, App.Consumer.Name })
            foreach (var client in Rids.Clients)
                foreach (var accepts in new[] { true, false })
                    data.Add(appName, client, accepts);
        return data;
    }

    // A node that accepts and never speaks, or never answers the connect (a dropped SYN), is given up
    // at --connect-timeout, not at the default 10 s. RabbitMQ.Client times its TCP connect itself, at
    // half the limit (RabbitMqConnector).
    [Theory]
    [MemberData(nameof(BrokerAppsByClientAndPeer))]
    public async Task A_silent_node_is_given_up_after_the_connect_timeout(string appName, string client, bool accepts)
    {
        using var listening = accepts ? new System.Net.Sockets.TcpListener(System.Net.IPAddress.Loopback, FreePort.Next()) : null;
        listening?.Start();
        using var unanswered = accepts ? null : new UnansweredPort();
        var port = unanswered?.Port ?? ((System.Net.IPEndPoint)listening!.LocalEndpoint).Port;
        var exitedMs = await AssertFailsAsync(appName, Repo.HostRid, 1, $"cannot reach RabbitMQ at amqp://127.0.0.1:{port}/",
            ["--uri", $"amqp://guest:topsecret@127.0.0.1:{port}/", "--connect-timeout", "1.5", .. Rids.ClientArguments(client)], environment: null);
        Assert.InRange(exitedMs, accepts || client != AppClient.RabbitMQ.Name ? 1_000 : 700, 8_000);
    }

    [Theory]
    [MemberData(nameof(BrokerAppsByRid))]
    public Task An_unknown_queue_type_is_a_usage_error_exit_2(string appName, string rid) =>
        AssertFailsAsync(appName, rid, 2, "--queue-type must be quorum or classic, not 'mirrored'", "--queue-type", "mirrored");

    [Theory]
    [MemberData(nameof(BrokerAppsByRid))]
    public async Task A_queue_that_exists_with_other_settings_exits_1_naming_it(string appName, string rid)
    {
        var queue = $"aotsmoke.badinput.{rid}.{Guid.NewGuid():N}";
        var result = await published.GetSucceededAsync(App.Named(appName), rid);
        // --count 0: declare the topology, then exit once ready (without a count the Consumer is a worker).
        await using (var classic = AppProcess.Start(result.ExecutablePath, ["--uri", TestBroker.Uri.ToString(), "--queue", queue, "--queue-type", "classic", "--count", "0"], rid: rid))
            Assert.Equal(0, await classic.WaitForExitAsync(AppRuns.ReadyTimeout(rid)));
        await AssertFailsAsync(appName, rid, 1, $"refused the topology of queue '{queue}', which exists with other settings", "--uri", TestBroker.Uri.ToString(), "--queue", queue);
    }

    [Theory]
    [MemberData(nameof(BrokerAppsByRid))]
    public Task Wrong_password_exits_1(string appName, string rid) =>
        AssertFailsAsync(appName, rid, 1, "credentials refused", "--uri", new UriBuilder(TestBroker.Uri) { Password = "topsecret" }.Uri.ToString());

    [Theory]
    [MemberData(nameof(BrokerAppsByRid))]
    public Task Missing_virtual_host_exits_1_naming_it(string appName, string rid) =>
        AssertFailsAsync(appName, rid, 1, "refused virtual host 'no-such-vhost'", "--uri", new UriBuilder(TestBroker.Uri) { Path = "/no-such-vhost" }.Uri.ToString());

    // One clear line on stderr, no stack trace, no password, and the exit code.
    public static TheoryData<string, string, string> TlsRefusalsByAppAndClient()
    {
        var data = new TheoryData<string, string, string>();
        foreach (var appName in new[] { App.Publisher.Name, App.Consumer.Name })
            foreach (var client in Rids.Clients)
                foreach (var refusal in TlsRefusals.All)
                    data.Add(appName, client, refusal);
        return data;
    }

    // linux-x64: what each refusal says is the clients' own tests'; here, that the NativeAOT apps say it in one line and exit 1.
    [Theory]
    [MemberData(nameof(TlsRefusalsByAppAndClient))]
    public async Task Each_TLS_refusal_exits_1_with_one_line_on_either_client(string appName, string client, string refusal)
    {
        await using var peer = await TlsRefusals.ArrangeAsync(refusal);
        string[] ca = peer.CaFile is null ? [] : ["--ca-file", peer.CaFile];
        await AssertFailsAsync(appName, Repo.HostRid, 1, peer.Expected, ["--uri", $"amqps://guest:topsecret@127.0.0.1:{peer.Port}/", .. ca, .. Rids.ClientArguments(client)]);
    }

    [Theory]
    [MemberData(nameof(BrokerAppsByRid))]
    public Task A_CA_file_that_is_not_there_is_a_usage_error_exit_2(string appName, string rid) =>
        AssertFailsAsync(appName, rid, 2, "TLS (--ca-file, --client-cert, --client-key): the CA file /no/such/ca.pem cannot be read", "--ca-file", "/no/such/ca.pem", "--uri", TestBroker.TlsUri.ToString());

    public static TheoryData<string, string, string, string> BadTelemetrySettingsByApp()
    {
        var data = new TheoryData<string, string, string, string>();
        foreach (var app in App.All)
        {
            data.Add(app.Name, "OTEL_EXPORTER_OTLP_ENDPOINT", "collector:4318", "OTEL_EXPORTER_OTLP_ENDPOINT is 'collector:4318': not an http:// or https:// address");
            data.Add(app.Name, "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "ftp://127.0.0.1/", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is 'ftp://127.0.0.1/': not an http:// or https:// address");
            data.Add(app.Name, "OTEL_EXPORTER_OTLP_PROTOCOL", "http/json", "OTEL_EXPORTER_OTLP_PROTOCOL is 'http/json': grpc or http/protobuf");
        }
        return data;
    }

    // The SDK would take these without a word and export nothing: a deployment's typo must not lose its telemetry silently.
    [Theory]
    [MemberData(nameof(BadTelemetrySettingsByApp))]
    public Task A_telemetry_setting_the_exporter_cannot_use_is_a_usage_error_exit_2(string appName, string variable, string value, string expected) =>
        AssertFailsAsync(appName, Repo.HostRid, 2, expected, [],
            new Dictionary<string, string> { ["OTEL_EXPORTER_OTLP_ENDPOINT"] = "http://127.0.0.1:4318", [variable] = value });

    private Task<double> AssertFailsAsync(string appName, string rid, int exitCode, string expected, params string[] args) =>
        AssertFailsAsync(appName, rid, exitCode, expected, args, environment: null);

    // Returns the spawn-to-exit time.
    private async Task<double> AssertFailsAsync(string appName, string rid, int exitCode, string expected, string[] args, IReadOnlyDictionary<string, string>? environment)
    {
        var result = await published.GetSucceededAsync(App.Named(appName), rid, PublishMode.Aot, AppClient.BuildFor(args));
        await using var process = AppProcess.Start(result.ExecutablePath, args, environment, rid: rid);
        Assert.Equal(exitCode, await process.WaitForExitAsync(AppRuns.ReadyTimeout(rid)));
        var lines = process.Stderr.Split('\n', StringSplitOptions.RemoveEmptyEntries);
        Assert.True(lines.Length == 1, $"expected one line on stderr, got:\n{process.Stderr}");
        Assert.StartsWith("error: ", lines[0], StringComparison.Ordinal);
        Assert.Contains(expected, lines[0], StringComparison.Ordinal);
        Assert.DoesNotContain("topsecret", process.Stderr, StringComparison.Ordinal);
        Assert.DoesNotContain("   at ", process.Stderr, StringComparison.Ordinal);
        return process.ExitedMs!.Value;
    }
}
