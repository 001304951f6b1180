namespace Prewire.Testing;

/// <summary>Where things are in the repository checkout the harness runs from.</summary>
public static class Repo
{
    public static string Root { get; } = FindRoot();

    public static string Artifacts => Path.Combine(Root, "artifacts");

    /// <summary>The RIDs every app is published and checked for.</summary>
    public static IReadOnlyList<string> Rids { get; } = ["linux-x64", "linux-arm64"];

    public static string HostRid => System.Runtime.InteropServices.RuntimeInformation.OSArchitecture switch
    {
        System.Runtime.InteropServices.Architecture.X64 => "linux-x64",
        System.Runtime.InteropServices.Architecture.Arm64 => "linux-arm64",
        var other => throw new PlatformNotSupportedException($"no RID for {other}"),
    };

    // Above the binary (the tests, the harness), else above the working directory (a script run with
    // `dotnet run file.cs`, whose binary lives in the SDK's cache).
    private static string FindRoot() =>
        Above(AppContext.BaseDirectory) ?? Above(Environment.CurrentDirectory)
        ?? throw new InvalidOperationException($"cannot find the repository root above {AppContext.BaseDirectory} or {Environment.CurrentDirectory}");

    private static string? Above(string start)
    {
        for (var dir = new DirectoryInfo(start); dir is not null; dir = dir.Parent)
        {
            if (File.Exists(Path.Combine(dir.FullName, "global.json")) && Directory.Exists(Path.Combine(dir.FullName, "samples")))
                return dir.FullName;
        }
        return null;
    }
}
