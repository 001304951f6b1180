namespace Prewire.Testing;

/// <summary>
/// Microsoft's NativeAOT web API template (<c>dotnet new webapiaot</c>: minimal APIs, source-generated
/// JSON, OpenAPI), generated and published by this SDK as a user would get it: the yardstick the
/// HttpEndpoint's size and start are held to.
/// </summary>
public static class WebTemplate
{
    /// <summary>The template as the harness publishes and runs it (artifacts/webapiaot, out of the source tree).</summary>
    public static readonly App App = new("WebTemplate", "artifacts/webapiaot", IsWeb: true);

    /// <summary>What the template serves; its ready line is Kestrel's own log line.</summary>
    public const string Route = "/todos";

    /// <summary>The template's first line that says it accepts requests (before "Application started").</summary>
    public const string ReadyText = "Now listening on:";

    /// <summary>Generates the template (once) and publishes it NativeAOT for <paramref name="rid"/>, with ILC's size statistics (the binary is unchanged).</summary>
    public static async Task<PublishResult> PublishAsync(string rid, TextWriter log)
    {
        ArgumentNullException.ThrowIfNull(log);
        var project = Path.Combine(Repo.Root, App.ProjectDirectory);
        if (!File.Exists(Path.Combine(project, "WebApiAot.csproj")))
        {
            log.WriteLine($"webapiaot: dotnet new webapiaot into {App.ProjectDirectory}");
            Directory.CreateDirectory(project);
            // The repository's build files (warnings as errors, central versions, our AOT settings) stop
            // here: the template builds with the SDK's defaults and its own package versions.
            foreach (var name in new[] { "Directory.Build.props", "Directory.Build.targets", "Directory.Packages.props" })
                await File.WriteAllTextAsync(Path.Combine(project, name), "<Project />\n").ConfigureAwait(false);
            var (exitCode, output) = await Tool.RunAsync("dotnet", ["new", "webapiaot", "--name", "WebApiAot", "--output", project, "--force"], Repo.Root).ConfigureAwait(false);
            if (exitCode != 0) throw new InvalidOperationException($"dotnet new webapiaot exited with {exitCode}:\n{output}");
        }
        return await Publishing.PublishProjectAsync(App, project, rid, PublishMode.Aot, [$"-p:AssemblyName={App.ExecutableName}", "-p:IlcGenerateMstatFile=true"],
            Publishing.OutputDirectory(App, rid, PublishMode.Aot)).ConfigureAwait(false);
    }
}
