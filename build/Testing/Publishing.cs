using System.Diagnostics;

namespace Prewire.Testing;

/// <summary>Runs <c>dotnet publish</c> for the apps, one at a time.</summary>
public static class Publishing
{
    // Publishes of one variant share the libraries' obj/ folders, and NativeAOT compiles use every core:
    // run them one after another, never in parallel.
    private static readonly SemaphoreSlim _oneAtATime = new(1, 1);

    public static string OutputDirectory(App app, string rid, PublishMode mode, AmqpClients clients = AmqpClients.Prewire) =>
        Path.Combine(Repo.Artifacts, "publish", rid, Variant(mode, clients), app.Name);

    /// <summary>
    /// The obj folder a publish of <paramref name="projectDirectory"/> compiles in: the project's own for
    /// the plain build, artifacts/obj/&lt;variant&gt;/&lt;project&gt;/ for a variant (Directory.Build.props).
    /// </summary>
    public static string ObjDirectory(string projectDirectory, string? variant) => variant is null
        ? Path.Combine(projectDirectory, "obj")
        : Path.Combine(Repo.Artifacts, "obj", variant, Path.GetFileNameWithoutExtension(Directory.EnumerateFiles(projectDirectory, "*.csproj").Single()));

    /// <summary>The bin folder a publish of <paramref name="projectDirectory"/> builds in, as <see cref="ObjDirectory"/> for obj.</summary>
    public static string BinDirectory(string projectDirectory, string? variant) => variant is null
        ? Path.Combine(projectDirectory, "bin")
        : Path.Combine(Repo.Artifacts, "bin", variant, Path.GetFileNameWithoutExtension(Directory.EnumerateFiles(projectDirectory, "*.csproj").Single()));

    // "aot", "aot-both", "aotnotelemetry", ...: the publish folder's name and the obj folders' variant.
    private static string Variant(PublishMode mode, AmqpClients clients) =>
        mode.ToString().ToLowerInvariant() + (clients == AmqpClients.Both ? "-both" : "");

    /// <summary>Publishes <paramref name="app"/> with <paramref name="clients"/> (Prewire's only, as a plain build does, unless told).</summary>
    public static async Task<PublishResult> PublishAsync(App app, string rid, PublishMode mode, AmqpClients clients = AmqpClients.Prewire, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(app);
        string[] modeArgs = mode switch
        {
            PublishMode.Aot => ["-p:PublishAot=true"],
            PublishMode.Jit => ["-p:PublishAot=false", "--self-contained", "true"],
            // build/NativeAot.props leaves PublishAot off for this builder.
            PublishMode.ExpressionTreeJit => ["-p:PipelineBuilder=ExpressionTree", "--self-contained", "true"],
            PublishMode.AotNoTelemetry => ["-p:PublishAot=true", "-p:PrewireTelemetry=false"],
            PublishMode.AotNoTelemetryNoTls => ["-p:PublishAot=true", "-p:PrewireTelemetry=false", "-p:PrewireTls=false"],
            PublishMode.AotFastStart => ["-p:PublishAot=true", "-p:PrewireFastStart=true"],
            _ => throw new ArgumentOutOfRangeException(nameof(mode), mode, null),
        };
        // Nothing for the default: what a plain `dotnet publish` builds is what is measured.
        string[] clientArgs = clients == AmqpClients.Both ? ["-p:PrewireAmqpClient=Both"] : [];
        var variant = mode == PublishMode.Aot && clients == AmqpClients.Prewire ? null : Variant(mode, clients);
        var result = await PublishProjectAsync(app, Path.Combine(Repo.Root, app.ProjectDirectory), rid, mode, [.. modeArgs, .. clientArgs], OutputDirectory(app, rid, mode, clients), variant: variant, cancellationToken: cancellationToken).ConfigureAwait(false);
        return result with { Clients = clients };
    }

    /// <summary>
    /// Publishes any project (the gate fixtures) with extra MSBuild arguments. A <paramref name="variant"/>
    /// (anything but what a plain <c>dotnet publish</c> builds) compiles in obj folders of its own,
    /// artifacts/obj/&lt;variant&gt;/ (Directory.Build.props), so the plain build's stay up to date.
    /// </summary>
    public static async Task<PublishResult> PublishProjectAsync(App app, string projectDirectory, string rid, PublishMode mode, IEnumerable<string> extraArgs, string outputDirectory, IReadOnlyDictionary<string, string>? environment = null, string? variant = null, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(app);
        await _oneAtATime.WaitAsync(cancellationToken).ConfigureAwait(false);
        try
        {
            if (Directory.Exists(outputDirectory)) Directory.Delete(outputDirectory, recursive: true);
            string[] args =
            [
                "publish", projectDirectory, "-c", "Release", "-r", rid, "-o", outputDirectory,
                "-nologo", "-nodeReuse:false", "-clp:NoSummary", .. extraArgs,
                .. (variant is null ? Array.Empty<string>() : [$"-p:PrewireBuildVariant={variant}"]),
            ];
            var clock = Stopwatch.StartNew();
            var (exitCode, output) = await Tool.RunAsync("dotnet", args, projectDirectory, environment, cancellationToken).ConfigureAwait(false);
            return new PublishResult(app, rid, mode, exitCode, output, clock.Elapsed, outputDirectory) { Variant = variant };
        }
        finally
        {
            _oneAtATime.Release();
        }
    }
}
