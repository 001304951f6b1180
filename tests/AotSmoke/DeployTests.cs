using System.Text.RegularExpressions;
using Prewire.Testing;

namespace Prewire.AotSmoke;

/// <summary>
/// deploy/: the manifests pass <c>./build.sh deploy-check</c>, a typo in one fails it naming the
/// file and the field, and every setting they give an app is one the app reads (its --help names the
/// environment variable), so a renamed option cannot leave a manifest silently ignored.
/// </summary>
public sealed partial class DeployTests(PublishedApps published)
{
    private static readonly string _deploy = Path.Combine(Repo.Root, "deploy");

    [Fact]
    public async Task The_manifests_are_valid_and_a_typo_fails_the_check_naming_the_file_and_field()
    {
        Assert.Equal((0, "deploy-check: 9 documents in 6 files valid"), await CheckAsync(_deploy));

        var copy = Directory.CreateTempSubdirectory("prewire-deploy-").FullName;
        try
        {
            foreach (var file in Directory.EnumerateFiles(_deploy, "*.yaml")) File.Copy(file, Path.Combine(copy, Path.GetFileName(file)));
            var consumer = Path.Combine(copy, "consumer.yaml");
            var ct = TestContext.Current.CancellationToken;
            await File.WriteAllTextAsync(consumer, (await File.ReadAllTextAsync(consumer, ct)).Replace("  replicas: 2", "  replcas: 2", StringComparison.Ordinal), ct);

            var (exitCode, output) = await CheckAsync(copy);
            Assert.Equal(1, exitCode);
            Assert.Contains($"deploy-check: {consumer}: Deployment prewire-consumer: spec.replcas is not a field of V1DeploymentSpec", output, StringComparison.Ordinal);
        }
        finally
        {
            Directory.Delete(copy, recursive: true);
        }
    }

    [Theory]
    [InlineData("http-endpoint.yaml", "HttpEndpoint")]
    [InlineData("consumer.yaml", "Consumer")]
    public async Task Every_environment_variable_a_manifest_sets_is_one_the_app_reads(string manifest, string appName)
    {
        var build = await published.GetSucceededAsync(App.Named(appName), Repo.HostRid);
        var help = await Tool.RunCheckedAsync(build.ExecutablePath, ["--help"], Repo.Root, cancellationToken: TestContext.Current.CancellationToken);

        var names = EnvName().Matches(await File.ReadAllTextAsync(Path.Combine(_deploy, manifest), TestContext.Current.CancellationToken)).Select(m => m.Groups["name"].Value).ToList();
        Assert.NotEmpty(names);
        Assert.All(names, name => Assert.Contains($"Env: {name}", help, StringComparison.Ordinal));
    }

    private static async Task<(int ExitCode, string Output)> CheckAsync(string directory)
    {
        // As ./build.sh deploy-check does: the validators at the versions the lock file pins.
        if (!Directory.Exists(Path.Combine(_deploy, "check", "node_modules")))
            await Tool.RunCheckedAsync("npm", ["ci", "--prefix", Path.Combine(_deploy, "check"), "--no-audit", "--no-fund"], Repo.Root);
        var (exitCode, output) = await Tool.RunAsync("node", [Path.Combine(_deploy, "check", "check.mjs"), directory], Repo.Root);
        return (exitCode, output.Trim());
    }

    [GeneratedRegex(@"- name: (?<name>(PREWIRE|RABBITMQ)_[A-Z_]+)")]
    private static partial Regex EnvName();
}
