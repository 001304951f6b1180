namespace Prewire.Harness;

/// <summary>An IL2xxx/IL3xxx warning as ILC reported it: code and member.</summary>
public sealed record TrimWarning(string Code, string Member)
{
    public override string ToString() => $"{Code} {Member}";
}
