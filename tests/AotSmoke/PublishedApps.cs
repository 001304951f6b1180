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
    private readonly ConcurrentDictionary<(string App, string Rid, PublishMode Mode), Lazy<Task<PublishResult>>> _published = new();

    public Task<PublishResult> GetAsync(App app, string rid, PublishMode mode = PublishMode.Aot) =>
        _published.GetOrAdd((app.Name, rid, mode), key => new Lazy<Task<PublishResult>>(() => Publishing.PublishAsync(app, rid, mode))).Value;

    /// <summary>
    /// The publish, which must have succeeded. For a RID whose AOT packs are missing from the package
    /// source (linux-arm64 here) the test is skipped with the preflight's message, and only then.
    /// </summary>
    public async Task<PublishResult> GetSucceededAsync(App app, string rid, PublishMode mode = PublishMode.Aot)
    {
        var result = await GetAsync(app, rid, mode);
        if (rid != Repo.HostRid && result.MissingAotPacks)
            Assert.Skip($"skipped for missing packs: {result.MissingAotPacksMessage}");
        Assert.True(result.Succeeded, $"{mode} publish of {app} for {rid} failed ({result.ExitCode}):\n{result.Errors}");
        return result;
    }
}
