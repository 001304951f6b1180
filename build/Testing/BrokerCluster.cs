namespace Prewire.Testing;

/// <summary>
/// A RabbitMQ cluster on loopback (build/broker.sh cluster): several nodes, one epmd, each node's
/// AMQP port its own (and, started with TLS, an amqps:// port beside it, all signed by one CA);
/// disposing stops them all.
/// </summary>
public sealed class BrokerCluster : IAsyncDisposable
{
    private readonly string _stateDirectory;

    private BrokerCluster(string stateDirectory, IReadOnlyList<string> uris, IReadOnlyList<string> tlsUris, string? caFile)
    {
        _stateDirectory = stateDirectory;
        Uris = uris;
        TlsUris = tlsUris;
        CaFile = caFile;
    }

    /// <summary>The nodes' AMQP URIs, node 1 first.</summary>
    public IReadOnlyList<string> Uris { get; }

    /// <summary>All of them as --uri and RABBITMQ_URI take them.</summary>
    public string Uri => string.Join(',', Uris);

    /// <summary>The nodes' amqps:// URIs, node 1 first (none unless started with TLS).</summary>
    public IReadOnlyList<string> TlsUris { get; }

    /// <summary>The CA that signed every node's certificate (started with TLS).</summary>
    public string? CaFile { get; }

    public static async Task<BrokerCluster> StartAsync(string stateDirectory, int nodes = 3, bool tls = false)
    {
        var (exitCode, output) = await RunAsync(stateDirectory, ["cluster", $"{nodes}", .. tls ? ["--tls"] : Array.Empty<string>()]).ConfigureAwait(false);
        var envFile = Path.Combine(stateDirectory, "env");
        if (exitCode != 0 || !File.Exists(envFile)) throw new InvalidOperationException($"build/broker.sh cluster failed ({exitCode}):\n{output}");
        var env = BrokerNode.ReadEnv(envFile);
        var tlsUris = env.TryGetValue("RABBITMQ_TLS_URI", out var given) ? given.Split(',') : [];
        return new BrokerCluster(stateDirectory, env["RABBITMQ_URI"].Split(','), tlsUris, env.GetValueOrDefault("PREWIRE_CA_FILE"));
    }

    /// <summary>rabbitmqctl against node <paramref name="node"/> (1-based).</summary>
    public async Task CtlAsync(int node, params string[] args)
    {
        var (exitCode, output) = await RunAsync(Path.Combine(_stateDirectory, $"node-{node}"), ["ctl", .. args]).ConfigureAwait(false);
        if (exitCode != 0) throw new InvalidOperationException($"rabbitmqctl {string.Join(' ', args)} on node {node} failed ({exitCode}): {output}");
    }

    /// <summary>Restarts node <paramref name="node"/> (1-based) the way the cluster operator rolls a pod: drained, stopped, started, revived (build/broker.sh restart).</summary>
    public async Task RestartAsync(int node)
    {
        var (exitCode, output) = await RunAsync(Path.Combine(_stateDirectory, $"node-{node}"), "restart").ConfigureAwait(false);
        if (exitCode != 0) throw new InvalidOperationException($"restarting node {node} failed ({exitCode}): {output}");
    }

    public async ValueTask DisposeAsync() => await RunAsync(_stateDirectory, "cluster-stop").ConfigureAwait(false);

    private static Task<(int ExitCode, string Output)> RunAsync(string stateDirectory, params string[] args) =>
        Tool.RunAsync(Path.Combine(Repo.Root, "build", "broker.sh"), args, Repo.Root,
            environment: new Dictionary<string, string> { ["PREWIRE_BROKER_STATE"] = stateDirectory });
}
