using System.Text.Json;
using System.Text.Json.Serialization;

namespace Prewire.Build;

/// <summary>An app's committed size budget (size-budget.json): one entry per RID.</summary>
internal sealed record SizeBudget(string RecordedWith, IReadOnlyList<SizeEntry> Entries)
{
    public static SizeBudget? Read(string path) => File.Exists(path)
        ? JsonSerializer.Deserialize(File.ReadAllText(path), SizeBudgetJson.Default.SizeBudget) ?? throw new InvalidDataException($"{path} is empty")
        : null;

    public void Write(string path) => File.WriteAllText(path, JsonSerializer.Serialize(this, SizeBudgetJson.Default.SizeBudget) + "\n");

    public SizeEntry? Find(string rid) => Entries.FirstOrDefault(e => e.Rid == rid);

    /// <summary>This budget with <paramref name="entry"/> in place of its RID's.</summary>
    public SizeBudget With(SizeEntry entry) => this with { Entries = [.. Entries.Where(e => e.Rid != entry.Rid), entry] };
}

/// <summary>One RID's binary size and what each assembly contributed to it (ILC's mstat), as recorded.</summary>
internal sealed record SizeEntry(string Rid, long BinaryBytes, IReadOnlyDictionary<string, long> Assemblies);

[JsonSourceGenerationOptions(WriteIndented = true, PropertyNamingPolicy = JsonKnownNamingPolicy.CamelCase)]
[JsonSerializable(typeof(SizeBudget))]
internal sealed partial class SizeBudgetJson : JsonSerializerContext;
