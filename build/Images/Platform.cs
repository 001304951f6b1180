namespace Prewire.Images;

/// <summary>What a RID is as a container platform, and where its C runtime is, in an image and on this machine.</summary>
public sealed record Platform(string Rid, string Architecture, string Triplet)
{
    public static Platform For(string rid) => rid switch
    {
        "linux-x64" => new(rid, "amd64", "x86_64-linux-gnu"),
        "linux-arm64" => new(rid, "arm64", "aarch64-linux-gnu"),
        _ => throw new ArgumentOutOfRangeException(nameof(rid), rid, "no container platform for this RID"),
    };

    /// <summary>Debian's multiarch library folder, which the loader searches.</summary>
    public string ImageLibraryDirectory => $"/lib/{Triplet}";

    /// <summary>A C runtime file: the system's own for this host's RID, else the cross packages' (e.g. libc6-dev-arm64-cross).</summary>
    public string HostFile(string name) => Rid == Repo.HostRid
        ? Path.Combine("/lib", Triplet, name)
        : Path.Combine("/usr", Triplet, "lib", name);
}
