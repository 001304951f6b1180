using System.Collections.Concurrent;
using Prewire.Testing;

[assembly: AssemblyFixture(typeof(Prewire.AotSmoke.PublishedApps))]
// Publishes and runs linux-x64/linux-arm64 binaries.
[assembly: System.Runtime.Versioning.SupportedOSPlatform("linux")]

namespace Prewire.AotSmoke;

/// <summary>
/// Publishes each (app, RID) once per test run, on first use, one publish at a time; every test
/// that needs the binary shares that one publish.
/// </summary>
public sealed class PublishedApps
{
    private readonly ConcurrentDictionary<(string App, string Rid, PublishMode Mode, AmqpClients Clients), Lazy<Task<PublishResult>>> _published = new();

    public Task<PublishResult> GetAsync(App app, string rid, PublishMode mode = PublishMode.Aot, AmqpClients clients = AmqpClients.Prewire) =>
        _published.GetOrAdd((app.Name, rid, mode, clients), key => new Lazy<Task<PublishResult>>(() => Publishing.PublishAsync(app, rid, mode, clients))).Value;

    /// <summary>The NativeAOT build that holds <paramref name="client"/>.</summary>
    public Task<PublishResult> GetSucceededAsync(App app, string rid, AppClient client) =>
        GetSucceededAsync(app, rid, PublishMode.Aot, (client ?? throw new ArgumentNullException(nameof(client))).Build);

    /// <summary>
    /// The publish, which must have succeeded. For a RID whose AOT packs are missing from the package
    /// source (linux-arm64 here) the test is skipped with the preflight's message, and only then.
    /// </summary>
    public async Task<PublishResult> GetSucceededAsync(App app, string rid, PublishMode mode = PublishMode.Aot, AmqpClients clients = AmqpClients.Prewire)
    {
        var result = await GetAsync(app, rid, mode, clients);
        if (rid != Repo.HostRid && result.MissingAotPacks)
            Assert.Skip($"skipped for missing packs: {result.MissingAotPacksMessage}");
        Assert.True(result.Succeeded, $"{mode} publish ({clients}) of {app} for {rid} failed ({result.ExitCode}):\n{result.Errors}");
        return result;
    }
}
