using System.Text.RegularExpressions;

namespace Prewire.Testing;

/// <summary>What one <c>dotnet publish</c> did, read from its exit code, output and files.</summary>
public sealed partial record PublishResult(App App, string Rid, PublishMode Mode, int ExitCode, string Output, TimeSpan Duration, string Directory)
{
    /// <summary>The AMQP clients the app was built with.</summary>
    public AmqpClients Clients { get; init; } = AmqpClients.Prewire;

    public bool Succeeded => ExitCode == 0;

    public string ExecutablePath => Path.Combine(Directory, App.ExecutableName);

    /// <summary>ILC's size statistics of an AOT publish (read by the harness's <c>size</c> verb), in the project's obj folder.</summary>
    public string MstatPath => Path.Combine(Publishing.ObjDirectory(Path.Combine(Repo.Root, App.ProjectDirectory), Variant), "Release", "net10.0", Rid, "native", $"{App.ExecutableName}.mstat");

    /// <summary>The symbols <c>StripSymbols</c> took out of an AOT publish's executable, in the project's bin folder.</summary>
    public string SymbolsPath => Path.Combine(Publishing.BinDirectory(Path.Combine(Repo.Root, App.ProjectDirectory), Variant), "Release", "net10.0", Rid, "native", $"{App.ExecutableName}.dbg");

    /// <summary>The obj folders' variant it was built in (<see cref="Publishing.PublishProjectAsync"/>); null for the plain build's.</summary>
    public string? Variant { get; init; }

    /// <summary>Every trim/AOT warning ILC reported, once each (<see cref="WarningGate.Read"/>).</summary>
    public IReadOnlyList<TrimWarning> TrimWarnings => WarningGate.Read(Output);

    /// <summary>What fails the warning gate (<see cref="WarningGate.Failures"/>).</summary>
    public IReadOnlyList<string> GateFailures => WarningGate.Failures(Output);

    /// <summary>True when the publish stopped because the package source lacks this RID's AOT packs.</summary>
    public bool MissingAotPacks => !Succeeded && Output.Contains("error PREWIRE001", StringComparison.Ordinal);

    /// <summary>The preflight's error line, naming the missing packages.</summary>
    public string? MissingAotPacksMessage => MissingAotPacks ? PreflightLine().Match(Output).Groups["text"].Value.Trim() : null;

    /// <summary>Bytes on disk: the executable for AOT, the whole folder for a self-contained JIT build.</summary>
    public long Size => Mode is PublishMode.Jit or PublishMode.ExpressionTreeJit
        ? new DirectoryInfo(Directory).EnumerateFiles("*", SearchOption.AllDirectories).Sum(f => f.Length)
        : new FileInfo(ExecutablePath).Length;

    /// <summary>The output's error lines, for failure messages.</summary>
    public string Errors => string.Join('\n', Output.Split('\n').Where(l => l.Contains(": error ", StringComparison.Ordinal)).Distinct());

    [GeneratedRegex(@"error PREWIRE001: (?<text>[^\[\r\n]*)")]
    private static partial Regex PreflightLine();
}
