using System.Text.Json;

namespace Prewire.Images;

/// <summary>
/// One app's OCI image, built the .NET way (<c>dotnet publish -t:PublishContainer</c>, settings in
/// build/Containers.props) on a base from a <see cref="LocalRegistry"/>, written as an OCI archive.
/// </summary>
public sealed record ContainerImage(App App, string Rid, PublishResult Publish, string ArchivePath)
{
    public static string DirectoryFor(App app, string rid) => Path.Combine(Repo.Artifacts, "containers", rid, app.Name);

    public static async Task<ContainerImage> PublishAsync(App app, string rid, string baseImage, LocalRegistry registry, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(app);
        ArgumentNullException.ThrowIfNull(registry);
        var directory = DirectoryFor(app, rid);
        var archive = Path.Combine(directory, "image.tar");
        Directory.CreateDirectory(directory);
        File.Delete(archive);
        var publish = await Publishing.PublishProjectAsync(app, Path.Combine(Repo.Root, app.ProjectDirectory), rid, PublishMode.Aot,
            ["-p:PublishAot=true", "-t:PublishContainer", $"-p:ContainerBaseImage={baseImage}", $"-p:ContainerArchiveOutputPath={archive}"],
            Path.Combine(directory, "publish"),
            new Dictionary<string, string> { ["DOTNET_CONTAINER_INSECURE_REGISTRIES"] = registry.Address },
            cancellationToken: cancellationToken).ConfigureAwait(false);
        return new ContainerImage(app, rid, publish, archive);
    }

    /// <summary>The image's configuration: platform, user, entrypoint, labels.</summary>
    public async Task<ImageConfig> ReadConfigAsync(CancellationToken cancellationToken = default)
    {
        using var json = JsonDocument.Parse(await SkopeoInspectAsync("--config", cancellationToken).ConfigureAwait(false));
        var root = json.RootElement;
        var config = root.GetProperty("config");
        return new ImageConfig(
            root.GetProperty("os").GetString()!,
            root.GetProperty("architecture").GetString()!,
            config.TryGetProperty("User", out var user) ? user.GetString() : null,
            config.TryGetProperty("Entrypoint", out var entrypoint) ? [.. entrypoint.EnumerateArray().Select(e => e.GetString()!)] : [],
            config.TryGetProperty("Labels", out var labels) ? labels.EnumerateObject().ToDictionary(l => l.Name, l => l.Value.GetString() ?? "") : []);
    }

    /// <summary>Bytes a registry stores and a node pulls: the manifest's compressed layers and config.</summary>
    public async Task<long> CompressedSizeAsync(CancellationToken cancellationToken = default)
    {
        using var json = JsonDocument.Parse(await SkopeoInspectAsync("--raw", cancellationToken).ConfigureAwait(false));
        var manifest = json.RootElement;
        return manifest.GetProperty("config").GetProperty("size").GetInt64()
            + manifest.GetProperty("layers").EnumerateArray().Sum(l => l.GetProperty("size").GetInt64());
    }

    /// <summary>Unpacks the image into a runtime bundle (config.json and rootfs/) with umoci; returns the bundle's folder.</summary>
    public async Task<string> UnpackAsync(CancellationToken cancellationToken = default)
    {
        var directory = Path.GetDirectoryName(ArchivePath)!;
        var (layout, bundle) = (Path.Combine(directory, "layout"), Path.Combine(directory, "bundle"));
        foreach (var stale in new[] { layout, bundle }.Where(Directory.Exists)) Directory.Delete(stale, recursive: true);
        await Tool.RunCheckedAsync("skopeo", ["copy", $"oci-archive:{ArchivePath}", $"oci:{layout}:app"], directory, cancellationToken: cancellationToken).ConfigureAwait(false);
        // As root, file owners are kept (the app's files belong to its user); otherwise rootless.
        string[] rootless = Environment.UserName == "root" ? [] : ["--rootless"];
        await Tool.RunCheckedAsync("umoci", ["unpack", .. rootless, "--image", $"{layout}:app", bundle], directory, cancellationToken: cancellationToken).ConfigureAwait(false);
        return bundle;
    }

    private Task<string> SkopeoInspectAsync(string what, CancellationToken cancellationToken) =>
        Tool.RunCheckedAsync("skopeo", ["inspect", what, $"oci-archive:{ArchivePath}"], Repo.Root, cancellationToken: cancellationToken);
}
