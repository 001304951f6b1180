using Prewire.Testing;

[assembly: AssemblyFixture(typeof(Prewire.TestBroker))]

namespace Prewire;

/// <summary>
/// The broker a test run talks to, shared by every test in the assembly: RABBITMQ_URI when given,
/// else a throwaway node on loopback (build/broker.sh) started on first use and stopped when the run
/// ends, so `dotnet test` and an IDE's runner work without ./build.sh. Linked into each test project.
/// </summary>
public sealed class TestBroker : IAsyncDisposable
{
    private static readonly Lazy<BrokerNode> _node = new(() =>
        BrokerNode.Start(Path.Combine(Repo.Artifacts, "test-broker", typeof(TestBroker).Assembly.GetName().Name!)));

    public static Uri Uri => _node.Value.Uri;

    /// <summary>The test node itself.</summary>
    public static BrokerNode Node => _node.Value;

    /// <summary>The test node's amqps:// listener.</summary>
    public static Uri TlsUri => _node.Value.TlsUri;

    /// <summary>The test node's TLS files (<see cref="BrokerNode.TlsDirectory"/>).</summary>
    public static string TlsDirectory => _node.Value.TlsDirectory;

    /// <summary>The root CA the test node's amqps listener chains to (<see cref="BrokerNode.CaFile"/>).</summary>
    public static string CaFile => _node.Value.CaFile;

    /// <summary>rabbitmqctl against the test node.</summary>
    public static Task CtlAsync(params string[] args) => _node.Value.CtlAsync(args);

    public async ValueTask DisposeAsync()
    {
        if (_node.IsValueCreated) await _node.Value.DisposeAsync();
    }
}
