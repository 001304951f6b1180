namespace Prewire.Testing;

/// <summary>qemu user-mode emulation for running linux-arm64 binaries on an x64 host.</summary>
public static class Qemu
{
    /// <summary>The arm64 C runtime from Debian's cross packages, passed to qemu with <c>-L</c>.</summary>
    public const string SysRoot = Prewire.Build.StartupInstruments.Arm64SysRoot;

    /// <summary>True when a binary for <paramref name="rid"/> runs under qemu here: arm64 on another host.</summary>
    public static bool Emulates(string? rid) => rid == "linux-arm64" && Repo.HostRid != "linux-arm64";

    /// <summary>The emulator, found as the Prewire.Build package's start-up gate finds it.</summary>
    public static string Path { get; } = Prewire.Build.StartupInstruments.Qemu ?? "qemu-aarch64-static";
}
