namespace Prewire.Testing;

/// <summary>
/// A RabbitMQ node to test against: the one RABBITMQ_URI names, or a throwaway node on loopback that
/// <see cref="Start"/> brings up with build/broker.sh (with its TLS listener) in a state folder of its
/// own and disposing stops.
/// </summary>
public sealed class BrokerNode : IAsyncDisposable
{
    private readonly string? _stateDirectory;
    private readonly Uri? _tlsUri;
    private readonly string? _tlsDirectory;

    private BrokerNode(Uri uri, Uri? tlsUri, string? tlsDirectory, string? stateDirectory)
    {
        Uri = uri;
        (_tlsUri, _tlsDirectory) = (tlsUri, tlsDirectory);
        _stateDirectory = stateDirectory;
    }

    public Uri Uri { get; }

    /// <summary>The node's amqps:// listener (RABBITMQ_TLS_URI for a given node).</summary>
    public Uri TlsUri => _tlsUri ?? throw new InvalidOperationException("the broker has no TLS listener (a given node needs RABBITMQ_TLS_URI and PREWIRE_TLS_DIR)");

    /// <summary>
    /// The folder of the node's TLS files (build/broker.sh make_pki): ca.pem, client.pem/.key, and for
    /// refusals other-ca.pem, expired.pem/.key, elsewhere.pem/.key.
    /// </summary>
    public string TlsDirectory => _tlsDirectory ?? throw new InvalidOperationException("the broker has no TLS listener (a given node needs RABBITMQ_TLS_URI and PREWIRE_TLS_DIR)");

    /// <summary>The root CA clients trust for the node's amqps listener (ca.pem in <see cref="TlsDirectory"/>).</summary>
    public string CaFile => Path.Combine(TlsDirectory, "ca.pem");

    /// <summary>The broker RABBITMQ_URI names (build.sh starts one for its verbs), or null.</summary>
    public static string? GivenUri => Environment.GetEnvironmentVariable("RABBITMQ_URI") is { Length: > 0 } given ? given : null;

    /// <summary><see cref="GivenUri"/>, which <paramref name="verb"/> needs.</summary>
    public static string RequiredUri(string verb) =>
        GivenUri ?? throw new InvalidOperationException($"{verb}: RABBITMQ_URI is not set (./build.sh {verb} starts a broker)");

    /// <summary>RABBITMQ_URI when set (nothing is started or stopped), else a new node in <paramref name="stateDirectory"/>.</summary>
    public static BrokerNode Start(string stateDirectory) =>
        GivenUri is { } given
            ? new BrokerNode(new Uri(given), Environment.GetEnvironmentVariable("RABBITMQ_TLS_URI") is { Length: > 0 } tls ? new Uri(tls) : null,
                Environment.GetEnvironmentVariable("PREWIRE_TLS_DIR"), stateDirectory: null)
            : StartOwn(stateDirectory);

    /// <summary>A new node in <paramref name="stateDirectory"/>, whatever RABBITMQ_URI says: one a test may stop, kill or restart.</summary>
    public static BrokerNode StartOwn(string stateDirectory)
    {
        var (exitCode, output) = RunAsync(stateDirectory, "start", "--tls").GetAwaiter().GetResult();
        var envFile = Path.Combine(stateDirectory, "env");
        if (exitCode != 0 || !File.Exists(envFile))
            throw new InvalidOperationException($"build/broker.sh start --tls failed ({exitCode}); are rabbitmq-server and openssl installed (build/bootstrap.sh)?\n{output}");
        var env = ReadEnv(envFile);
        return new BrokerNode(new Uri(env["RABBITMQ_URI"]), new Uri(env["RABBITMQ_TLS_URI"]), env["PREWIRE_TLS_DIR"], stateDirectory);
    }

    /// <summary>The NAME=value lines build/broker.sh writes to a state folder's env file.</summary>
    internal static Dictionary<string, string> ReadEnv(string envFile) =>
        File.ReadLines(envFile).Select(l => l.Split('=', 2)).Where(p => p.Length == 2).ToDictionary(p => p[0], p => p[1]);

    /// <summary>rabbitmqctl against this node (a node given by RABBITMQ_URI: the one build/broker.sh started by default).</summary>
    public async Task CtlAsync(params string[] args)
    {
        var (exitCode, output) = await RunAsync(_stateDirectory, ["ctl", .. args]).ConfigureAwait(false);
        if (exitCode != 0) throw new InvalidOperationException($"rabbitmqctl {string.Join(' ', args)} failed ({exitCode}): {output}");
    }

    /// <summary>SIGKILL: the node crashes (no goodbye to its clients); its data stays for <see cref="ReviveAsync"/>.</summary>
    public Task KillAsync() => RunCheckedAsync("kill");

    /// <summary>Starts a killed node again, same port, same data.</summary>
    public Task ReviveAsync() => RunCheckedAsync("revive");

    private async Task RunCheckedAsync(string verb)
    {
        if (_stateDirectory is null) throw new InvalidOperationException($"a node given by RABBITMQ_URI is not the tests' to {verb}");
        var (exitCode, output) = await RunAsync(_stateDirectory, verb).ConfigureAwait(false);
        if (exitCode != 0) throw new InvalidOperationException($"build/broker.sh {verb} failed ({exitCode}): {output}");
    }

    public async ValueTask DisposeAsync()
    {
        if (_stateDirectory is not null) await RunAsync(_stateDirectory, "stop").ConfigureAwait(false);
    }

    private static Task<(int ExitCode, string Output)> RunAsync(string? stateDirectory, params string[] args) =>
        Tool.RunAsync(Path.Combine(Repo.Root, "build", "broker.sh"), args, Repo.Root,
            environment: stateDirectory is null ? null : new Dictionary<string, string> { ["PREWIRE_BROKER_STATE"] = stateDirectory });
}
