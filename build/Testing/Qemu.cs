namespace Prewire.Testing;

/// <summary>qemu user-mode emulation for running linux-arm64 binaries on an x64 host.</summary>
public static class Qemu
{
    /// <summary>The arm64 C runtime from Debian's cross packages, passed to qemu with <c>-L</c>.</summary>
    public const string SysRoot = "/usr/aarch64-linux-gnu";

    /// <summary>True when a binary for <paramref name="rid"/> runs under qemu here: arm64 on another host.</summary>
    public static bool Emulates(string? rid) => rid == "linux-arm64" && Repo.HostRid != "linux-arm64";

    public static string Path { get; } =
        new[] { "/usr/bin/qemu-aarch64-static", "/usr/bin/qemu-aarch64" }.FirstOrDefault(File.Exists) ?? "qemu-aarch64-static";
}
