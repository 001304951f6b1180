namespace Prewire.Images;

/// <summary>The parts of an OCI image configuration the checks read.</summary>
public sealed record ImageConfig(string Os, string Architecture, string? User, IReadOnlyList<string> Entrypoint, IReadOnlyDictionary<string, string> Labels);
