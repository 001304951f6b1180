using System.Diagnostics;
using System.Text;

namespace Prewire.Testing;

/// <summary>Runs a command line tool to completion and collects its output.</summary>
public static class Tool
{
    public static async Task<(int ExitCode, string Output)> RunAsync(string fileName, IEnumerable<string> args, string workingDirectory, IReadOnlyDictionary<string, string>? environment = null, CancellationToken cancellationToken = default)
    {
        var start = new ProcessStartInfo(fileName)
        {
            WorkingDirectory = workingDirectory,
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            UseShellExecute = false,
        };
        foreach (var arg in args) start.ArgumentList.Add(arg);
        ScrubMSBuildEnvironment(start.Environment);
        foreach (var (key, value) in environment ?? new Dictionary<string, string>()) start.Environment[key] = value;

        var output = new StringBuilder();
        using var process = new Process { StartInfo = start };
        process.OutputDataReceived += (_, e) => { if (e.Data is not null) lock (output) output.AppendLine(e.Data); };
        process.ErrorDataReceived += (_, e) => { if (e.Data is not null) lock (output) output.AppendLine(e.Data); };
        process.Start();
        process.BeginOutputReadLine();
        process.BeginErrorReadLine();
        try
        {
            await process.WaitForExitAsync(cancellationToken).ConfigureAwait(false);
        }
        catch (OperationCanceledException)
        {
            process.Kill(entireProcessTree: true);
            throw;
        }
        lock (output) return (process.ExitCode, output.ToString());
    }

    /// <summary>Runs a tool that must succeed; returns its output, or throws with the command line and the output.</summary>
    public static async Task<string> RunCheckedAsync(string fileName, IEnumerable<string> args, string workingDirectory, IReadOnlyDictionary<string, string>? environment = null, CancellationToken cancellationToken = default)
    {
        var argList = args.ToList();
        var (exitCode, output) = await RunAsync(fileName, argList, workingDirectory, environment, cancellationToken).ConfigureAwait(false);
        return exitCode == 0 ? output
            : throw new InvalidOperationException($"{fileName} {string.Join(' ', argList)} exited with {exitCode}:\n{output}");
    }

    /// <summary>
    /// A dotnet started from inside a test run or another build inherits MSBuild's variables and would
    /// build with the parent's settings; children start clean and never leave build nodes behind.
    /// </summary>
    public static void ScrubMSBuildEnvironment(IDictionary<string, string?> environment)
    {
        ArgumentNullException.ThrowIfNull(environment);
        foreach (var key in environment.Keys.Where(k => k.StartsWith("MSBUILD", StringComparison.OrdinalIgnoreCase) || k.StartsWith("VSTEST", StringComparison.OrdinalIgnoreCase)).ToList())
            environment.Remove(key);
        environment["MSBUILDDISABLENODEREUSE"] = "1";
        environment["DOTNET_CLI_TELEMETRY_OPTOUT"] = "1";
        environment["DOTNET_NOLOGO"] = "1";
    }
}
