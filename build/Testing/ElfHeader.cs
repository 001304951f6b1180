using System.Buffers.Binary;

namespace Prewire.Testing;

/// <summary>The fields of an ELF header the checks need (ELF-64, little-endian).</summary>
public readonly record struct ElfHeader(bool Is64Bit, bool IsLittleEndian, ElfType Type, ElfMachine Machine)
{
    /// <summary>Reads the header; throws <see cref="InvalidDataException"/> when the file is not ELF.</summary>
    public static ElfHeader Read(string path)
    {
        var header = new byte[20];
        using (var file = File.OpenRead(path))
        {
            file.ReadExactly(header);
        }
        if (header[0] != 0x7F || header[1] != (byte)'E' || header[2] != (byte)'L' || header[3] != (byte)'F')
            throw new InvalidDataException($"{path} is not an ELF file");

        var littleEndian = header[5] == 1;
        ushort Read16(int offset) => littleEndian
            ? BinaryPrimitives.ReadUInt16LittleEndian(header.AsSpan(offset))
            : BinaryPrimitives.ReadUInt16BigEndian(header.AsSpan(offset));

        return new ElfHeader(header[4] == 2, littleEndian, (ElfType)Read16(16), (ElfMachine)Read16(18));
    }

    public static ElfMachine MachineFor(string rid) => rid switch
    {
        "linux-x64" => ElfMachine.X64,
        "linux-arm64" => ElfMachine.AArch64,
        _ => throw new ArgumentException($"no ELF machine known for {rid}", nameof(rid)),
    };
}

/// <summary>e_type.</summary>
public enum ElfType : ushort
{
    None = 0,
    Relocatable = 1,
    Executable = 2,
    /// <summary>Shared object, which is also what a position-independent executable is.</summary>
    SharedObject = 3,
    Core = 4,
}

/// <summary>e_machine, the values we meet.</summary>
public enum ElfMachine : ushort
{
    X64 = 62,
    AArch64 = 183,
}
