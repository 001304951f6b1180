using ELFSharp.ELF;

namespace Prewire.Testing;

/// <summary>What a published binary's ELF header must say for a RID (read with ELFSharp).</summary>
public static class Elf
{
    public static Machine MachineFor(string rid) => rid switch
    {
        "linux-x64" => Machine.AMD64,
        "linux-arm64" => Machine.AArch64,
        _ => throw new ArgumentException($"no ELF machine known for {rid}", nameof(rid)),
    };
}
