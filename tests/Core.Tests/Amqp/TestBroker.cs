using System.Diagnostics;
using RabbitMQ.Client;

namespace Prewire.Amqp;

/// <summary>The throwaway broker ./build.sh test starts (build/broker.sh), and the official client to check our publisher with.</summary>
internal static class TestBroker
{
    public static Uri Uri
    {
        get
        {
            var uri = Environment.GetEnvironmentVariable("RABBITMQ_URI");
            Assert.True(uri is not null, "no broker: run the tests through ./build.sh test, which starts one (RABBITMQ_URI)");
            return new Uri(uri);
        }
    }

    public static Task<IConnection> OfficialClientAsync() =>
        new ConnectionFactory { Uri = Uri, AutomaticRecoveryEnabled = false }.CreateConnectionAsync(TestContext.Current.CancellationToken);

    /// <summary>rabbitmqctl against the test node, through build/broker.sh.</summary>
    public static async Task CtlAsync(params string[] args)
    {
        var script = Path.Combine(RepoRoot(), "build", "broker.sh");
        var start = new ProcessStartInfo(script) { RedirectStandardOutput = true, RedirectStandardError = true };
        start.ArgumentList.Add("ctl");
        foreach (var arg in args) start.ArgumentList.Add(arg);
        using var process = Process.Start(start)!;
        var stderr = await process.StandardError.ReadToEndAsync(TestContext.Current.CancellationToken);
        await process.WaitForExitAsync(TestContext.Current.CancellationToken);
        Assert.True(process.ExitCode == 0, $"rabbitmqctl {string.Join(' ', args)} failed: {stderr}");
    }

    private static string RepoRoot()
    {
        for (var dir = new DirectoryInfo(AppContext.BaseDirectory); dir is not null; dir = dir.Parent)
            if (File.Exists(Path.Combine(dir.FullName, "global.json"))) return dir.FullName;
        throw new InvalidOperationException("repository root not found");
    }
}
