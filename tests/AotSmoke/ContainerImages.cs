using System.Collections.Concurrent;
using Prewire.Testing;
using Prewire.Images;

[assembly: AssemblyFixture(typeof(Prewire.AotSmoke.ContainerImages))]

namespace Prewire.AotSmoke;

/// <summary>
/// The container images of the apps, built once per test run on first use: a loopback registry, one
/// base image per RID holding the C runtime files all three apps' binaries load, then each app's
/// image from <c>dotnet publish -t:PublishContainer</c>.
/// </summary>
public sealed class ContainerImages : IAsyncDisposable
{
    private static readonly string _directory = Path.Combine(Repo.Artifacts, "containers");
    private readonly Lazy<Task<LocalRegistry>> _registry = new(() =>
    {
        var directory = Path.Combine(_directory, "registry");
        if (Directory.Exists(directory)) Directory.Delete(directory, recursive: true);
        return LocalRegistry.StartAsync(directory);
    });
    private readonly ConcurrentDictionary<string, Lazy<Task<string>>> _bases = new();
    private readonly ConcurrentDictionary<(string App, string Rid), Lazy<Task<ContainerImage>>> _images = new();

    public Task<ContainerImage> GetAsync(PublishedApps published, App app, string rid) =>
        _images.GetOrAdd((app.Name, rid), _ => new Lazy<Task<ContainerImage>>(async () =>
        {
            var baseImage = await _bases.GetOrAdd(rid, _ => new Lazy<Task<string>>(() => PushBaseAsync(published, rid))).Value;
            return await ContainerImage.PublishAsync(app, rid, baseImage, await _registry.Value);
        })).Value;

    private async Task<string> PushBaseAsync(PublishedApps published, string rid)
    {
        var binaries = new List<string>();
        foreach (var app in App.All) binaries.Add((await published.GetSucceededAsync(app, rid)).ExecutablePath);
        return await BaseImage.PushAsync(await _registry.Value, rid, binaries, Path.Combine(_directory, rid, "base"));
    }

    public async ValueTask DisposeAsync()
    {
        if (_registry.IsValueCreated) await (await _registry.Value).DisposeAsync();
    }
}
