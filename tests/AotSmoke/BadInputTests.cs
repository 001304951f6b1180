using Prewire.Harness;

namespace Prewire.AotSmoke;

/// <summary>Bad flags, bad URIs and an unreachable broker: one clear stderr line, no stack trace, the right exit code.</summary>
public sealed class BadInputTests(PublishedApps published)
{
    public static TheoryData<string> BrokerApps => new(App.Publisher.Name, App.Consumer.Name);

    public static TheoryData<string> AllApps => new(App.All.Select(a => a.Name));

    [Theory]
    [MemberData(nameof(AllApps))]
    public async Task Unknown_flag_is_a_usage_error_exit_2(string appName)
    {
        var (exitCode, stderr) = await RunAsync(appName, "--no-such-flag");
        Assert.Equal(2, exitCode);
        AssertOneLine(stderr, "--no-such-flag");
    }

    [Theory]
    [MemberData(nameof(AllApps))]
    public async Task Help_exits_0(string appName)
    {
        var app = App.Named(appName);
        var result = await published.GetSucceededAsync(app, Repo.HostRid);
        await using var process = AppProcess.Start(result.ExecutablePath, ["--help"]);
        Assert.Equal(0, await process.WaitForExitAsync(AppRuns.ExitTimeout));
        Assert.Contains($"Usage:\n  {app.ExecutableName} [options]", process.Stdout, StringComparison.Ordinal);
    }

    [Theory]
    [MemberData(nameof(BrokerApps))]
    public async Task Unreachable_broker_exits_1(string appName)
    {
        var port = FreePort.Next();
        var (exitCode, stderr) = await RunAsync(appName, "--uri", $"amqp://guest:topsecret@127.0.0.1:{port}/");
        Assert.Equal(1, exitCode);
        AssertOneLine(stderr, $"cannot reach RabbitMQ at amqp://127.0.0.1:{port}/");
    }

    [Theory]
    [MemberData(nameof(BrokerApps))]
    public async Task Malformed_uri_exits_1(string appName)
    {
        var (exitCode, stderr) = await RunAsync(appName, "--uri", "http://guest:topsecret@127.0.0.1/");
        Assert.Equal(1, exitCode);
        AssertOneLine(stderr, "invalid broker URI");
    }

    [Theory]
    [MemberData(nameof(BrokerApps))]
    public async Task Wrong_password_exits_1(string appName)
    {
        var broker = Repo.BrokerUri();
        Assert.True(broker is not null, "no broker: run the tests through ./build.sh test, which starts one");
        var wrong = new UriBuilder(new Uri(broker)) { Password = "topsecret" }.Uri.ToString();
        var (exitCode, stderr) = await RunAsync(appName, "--uri", wrong);
        Assert.Equal(1, exitCode);
        AssertOneLine(stderr, "credentials refused");
    }

    private async Task<(int ExitCode, string Stderr)> RunAsync(string appName, params string[] args)
    {
        var result = await published.GetSucceededAsync(App.Named(appName), Repo.HostRid);
        await using var process = AppProcess.Start(result.ExecutablePath, args);
        var exitCode = await process.WaitForExitAsync(TimeSpan.FromSeconds(15));
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
