using System.Text.Json;
using System.Text.Json.Serialization;
using System.Text.Json.Serialization.Metadata;

namespace Prewire.Build;

/// <summary>A committed baseline file beside the app (size-budget.json, startup-baseline.json): one entry per RID.</summary>
internal sealed record RidFile<T>(string RecordedWith, IReadOnlyList<T> Entries) where T : IRidEntry
{
    public static RidFile<T>? Read(string path, JsonTypeInfo<RidFile<T>> json) => File.Exists(path)
        ? JsonSerializer.Deserialize(File.ReadAllText(path), json) ?? throw new InvalidDataException($"{path} is empty")
        : null;

    /// <summary>Writes <paramref name="entry"/> in place of its RID's entry in <paramref name="path"/> (created if missing).</summary>
    public static void Record(string path, T entry, JsonTypeInfo<RidFile<T>> json)
    {
        var file = Read(path, json) ?? new RidFile<T>($"Prewire.Build {typeof(RidFile<T>).Assembly.GetName().Version?.ToString(3)}", []);
        file = file with { Entries = [.. file.Entries.Where(e => e.Rid != entry.Rid), entry] };
        File.WriteAllText(path, JsonSerializer.Serialize(file, json) + "\n");
    }

    public T? Find(string rid) => Entries.FirstOrDefault(e => e.Rid == rid);
}

/// <summary>An entry of a <see cref="RidFile{T}"/>.</summary>
internal interface IRidEntry
{
    string Rid { get; }
}

/// <summary>One RID's binary size and what each assembly contributed to it (ILC's mstat), as recorded.</summary>
internal sealed record SizeEntry(string Rid, long BinaryBytes, IReadOnlyDictionary<string, long> Assemblies) : IRidEntry;

/// <summary>
/// One RID's start as recorded: the least spawn-to-ready (or exit) time of the app and of the floor over
/// the pairs, the least of each one's time off the CPU (<see cref="StartupTime"/>; null where not read),
/// and, natively, the least instruction count of each (null where nothing counts).
/// </summary>
internal sealed record StartupEntry(string Rid, string Figure, double FloorMs, double AppMs, long? FloorInstructions, long? AppInstructions, double? FloorOffCpuMs = null, double? AppOffCpuMs = null) : IRidEntry
{
    [JsonIgnore]
    public double ExcessMs => AppMs - FloorMs;

    [JsonIgnore]
    public double? ExcessOffCpuMs => AppOffCpuMs - FloorOffCpuMs;

    [JsonIgnore]
    public long? ExcessInstructions => AppInstructions - FloorInstructions;
}

[JsonSourceGenerationOptions(WriteIndented = true, PropertyNamingPolicy = JsonKnownNamingPolicy.CamelCase, DefaultIgnoreCondition = JsonIgnoreCondition.WhenWritingNull)]
[JsonSerializable(typeof(RidFile<SizeEntry>))]
[JsonSerializable(typeof(RidFile<StartupEntry>))]
internal sealed partial class BaselineJson : JsonSerializerContext;
