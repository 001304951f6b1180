using Prewire.Harness;

namespace Prewire.AotSmoke;

/// <summary>Bad flags, bad URIs and an unreachable broker: one clear stderr line, no stack trace, the right exit code; on each RID.</summary>
public sealed class BadInputTests(PublishedApps published)
{
    public static TheoryData<string, string> BrokerAppsByRid => Rids.AppsByRid(App.Publisher, App.Consumer);

    public static TheoryData<string, string> AllAppsByRid => Rids.AppsByRid();

    [Theory]
    [MemberData(nameof(AllAppsByRid))]
    public async Task Unknown_flag_is_a_usage_error_exit_2(string appName, string rid)
    {
        var (exitCode, stderr) = await RunAsync(appName, rid, "--no-such-flag");
        Assert.Equal(2, exitCode);
        AssertOneLine(stderr, "--no-such-flag");
    }

    [Theory]
    [MemberData(nameof(BrokerAppsByRid))]
    public async Task A_count_that_is_not_a_number_is_a_usage_error_exit_2(string appName, string rid)
    {
        var (exitCode, stderr) = await RunAsync(appName, rid, "--count", "abc");
        Assert.Equal(2, exitCode);
        AssertOneLine(stderr, "--count must be a whole number of 0 or more, not 'abc'");
    }

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
        var port = FreePort.Next();
        var (exitCode, stderr) = await RunAsync(appName, rid, "--uri", $"amqp://guest:topsecret@127.0.0.1:{port}/");
        Assert.Equal(1, exitCode);
        AssertOneLine(stderr, $"cannot reach RabbitMQ at amqp://127.0.0.1:{port}/");
    }

    [Theory]
    [MemberData(nameof(BrokerAppsByRid))]
    public async Task Malformed_uri_exits_1(string appName, string rid)
    {
        var (exitCode, stderr) = await RunAsync(appName, rid, "--uri", "http://guest:topsecret@127.0.0.1/");
        Assert.Equal(1, exitCode);
        AssertOneLine(stderr, "invalid broker URI");
    }

    [Theory]
    [MemberData(nameof(BrokerAppsByRid))]
    public Task Wrong_password_exits_1(string appName, string rid) =>
        AssertBrokerRefusesAsync(appName, rid, new UriBuilder(TestBroker.Uri) { Password = "topsecret" }, "credentials refused");

    [Theory]
    [MemberData(nameof(BrokerAppsByRid))]
    public Task Missing_virtual_host_exits_1_naming_it(string appName, string rid) =>
        AssertBrokerRefusesAsync(appName, rid, new UriBuilder(TestBroker.Uri) { Path = "/no-such-vhost" }, "refused virtual host 'no-such-vhost'");

    private async Task AssertBrokerRefusesAsync(string appName, string rid, UriBuilder uri, string expected)
    {
        var (exitCode, stderr) = await RunAsync(appName, rid, "--uri", uri.Uri.ToString());
        Assert.Equal(1, exitCode);
        AssertOneLine(stderr, expected);
    }

    private async Task<(int ExitCode, string Stderr)> RunAsync(string appName, string rid, params string[] args)
    {
        var result = await published.GetSucceededAsync(App.Named(appName), rid);
        await using var process = AppProcess.Start(result.ExecutablePath, args, rid: rid);
        var exitCode = await process.WaitForExitAsync(AppRuns.ReadyTimeout(rid));
        return (exitCode, process.Stderr);
    }

    private static void AssertOneLine(string stderr, string expected)
    {
        var lines = stderr.Split('\n', StringSplitOptions.RemoveEmptyEntries);
        Assert.True(lines.Length == 1, $"expected one line on stderr, got:\n{stderr}");
        Assert.StartsWith("error: ", lines[0], StringComparison.Ordinal);
        Assert.Contains(expected, lines[0], StringComparison.Ordinal);
        Assert.DoesNotContain("topsecret", stderr, StringComparison.Ordinal);
        Assert.DoesNotContain("   at ", stderr, StringComparison.Ordinal);
    }
}
