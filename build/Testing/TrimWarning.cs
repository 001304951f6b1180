namespace Prewire.Testing;

/// <summary>
/// A trim/AOT warning as ILC reported it: the member, for our assemblies' expanded warnings; the
/// assembly, for a package's collapsed IL2104/IL3053.
/// </summary>
public sealed record TrimWarning(string Code, string Subject, bool IsPackage)
{
    public override string ToString() => $"{Code} {Subject}";
}
