using Prewire.Harness;

namespace Prewire.AotSmoke;

/// <summary>The gate fails when it must: a warning in our code, and a stale allowlist entry.</summary>
public sealed class WarningGateTests
{
    private static readonly string FixtureDirectory = Path.Combine(Repo.Root, "tests", "AotSmoke", "Fixtures", "GateFixture");
    private static readonly App Fixture = new("GateFixture", "tests/AotSmoke/Fixtures/GateFixture", IsWeb: false);
    private const string ExpectedMember = "Prewire.GateFixture.Program.Main()";

    [Fact]
    public async Task A_RequiresUnreferencedCode_call_in_our_code_fails_the_publish_with_exactly_that_warning()
    {
        var result = await PublishFixtureAsync("default", []);

        Assert.False(result.Succeeded, "the gate let a publish with an IL2026 warning through");
        Assert.Equal([new TrimWarning("IL2026", ExpectedMember)], result.TrimWarnings);
        var failure = Assert.Single(result.GateFailures);
        Assert.StartsWith($"Warning gate: IL2026 in our own code at {ExpectedMember}: Using member 'Prewire.GateFixture.Program.CountMethods(Type)'", failure, StringComparison.Ordinal);
    }

    [Fact]
    public async Task An_allowlist_entry_that_no_longer_occurs_fails_the_publish()
    {
        var allowlist = Path.Combine(Repo.Artifacts, "gate-fixture", "stale.allowlist");
        Directory.CreateDirectory(Path.GetDirectoryName(allowlist)!);
        await File.WriteAllTextAsync(allowlist,
            "IL2075 | System.Private.CoreLib | System.Object.NoSuchMember() | test: an entry whose warning does not occur\n",
            TestContext.Current.CancellationToken);

        var result = await PublishFixtureAsync("stale", [$"-p:PrewireWarningAllowlist={allowlist}"]);

        Assert.False(result.Succeeded);
        Assert.Contains(result.GateFailures, f => f.Contains("allowlist entry IL2075 System.Object.NoSuchMember() (System.Private.CoreLib) no longer occurs", StringComparison.Ordinal));
    }

    private static Task<PublishResult> PublishFixtureAsync(string name, string[] extraArgs) =>
        Publishing.PublishProjectAsync(Fixture, FixtureDirectory, Repo.HostRid, PublishMode.Aot, extraArgs,
            Path.Combine(Repo.Artifacts, "gate-fixture", name), TestContext.Current.CancellationToken);
}
