using Prewire.Testing;

namespace Prewire.AotSmoke;

/// <summary>The gate decides by assembly and fails when it must: a warning in our code (top-level statements included), our assembly in the allowlist, a stale entry.</summary>
public sealed class WarningGateTests
{
    private static readonly string _fixtureDirectory = Path.Combine(Repo.Root, "tests", "AotSmoke", "Fixtures", "GateFixture");
    private static readonly App _fixture = new("GateFixture", "tests/AotSmoke/Fixtures/GateFixture", IsWeb: false);
    private const string ExpectedMember = "Program.<Main>$(String[])";

    public static TheoryData<string> EachRid => Rids.Each();

    [Theory]
    [MemberData(nameof(EachRid))]
    public async Task A_RequiresUnreferencedCode_call_in_top_level_statements_fails_the_publish_naming_the_member_on_every_try(string rid)
    {
        // Twice: ILC writes its object file even when it reports errors, and a second publish must not link it.
        foreach (var attempt in new[] { "first", "second" })
        {
            var result = await PublishFixtureAsync(rid, "default", []);

            Assert.False(result.Succeeded, $"the {attempt} publish with an IL2026 warning in our own top-level Program succeeded");
            Assert.Equal([new TrimWarning("IL2026", ExpectedMember, IsPackage: false)], result.TrimWarnings);
            Assert.Equal([$"IL2026 in our code at {ExpectedMember}"], result.GateFailures);
            Assert.Contains("Trim analysis error IL2026: Program.<Main>$(String[]): Using member 'Program.<<Main>$>g__CountMethods|0_0(Type)'", result.Output, StringComparison.Ordinal);
        }
    }

    [Fact]
    public async Task An_allowlist_entry_naming_our_own_assembly_is_refused_before_compiling()
    {
        var allowlist = await WriteAllowlistAsync("own", "Prewire.GateFixture | test: our own assembly may not be listed");

        var result = await PublishFixtureAsync(Repo.HostRid, "own", [$"-p:PrewireWarningAllowlist={allowlist}"]);

        Assert.False(result.Succeeded);
        Assert.Contains("error PREWIRE013: Warning gate: Prewire.GateFixture is built with this app (the app or a project reference) and cannot be allowlisted", result.Output, StringComparison.Ordinal);
        Assert.DoesNotContain("Generating native code", result.Output, StringComparison.Ordinal);
    }

    [Fact]
    public async Task An_allowlisted_package_that_does_not_warn_fails_the_gate_and_our_warning_stays_an_error()
    {
        var allowlist = await WriteAllowlistAsync("stale", "System.Private.CoreLib | test: a package whose warnings do not occur");

        var result = await PublishFixtureAsync(Repo.HostRid, "stale", [$"-p:PrewireWarningAllowlist={allowlist}"]);

        Assert.False(result.Succeeded, "with packages allowlisted, a warning in our own code must still fail the publish");
        Assert.Contains("Trim analysis error IL2026", result.Output, StringComparison.Ordinal);
        Assert.Equal(
            [$"IL2026 in our code at {ExpectedMember}", "allowlisted System.Private.CoreLib no longer warns: remove it from build/trim-warnings.allowlist"],
            result.GateFailures);
    }

    private static async Task<string> WriteAllowlistAsync(string name, string entry)
    {
        var allowlist = Path.Combine(Repo.Artifacts, "gate-fixture", $"{name}.allowlist");
        Directory.CreateDirectory(Path.GetDirectoryName(allowlist)!);
        await File.WriteAllTextAsync(allowlist, $"# test allowlist\n{entry}\n", TestContext.Current.CancellationToken);
        return allowlist;
    }

    private static Task<PublishResult> PublishFixtureAsync(string rid, string name, string[] extraArgs) =>
        Publishing.PublishProjectAsync(_fixture, _fixtureDirectory, rid, PublishMode.Aot, extraArgs,
            Path.Combine(Repo.Artifacts, "gate-fixture", rid, name), variant: $"gate-fixture-{name}", cancellationToken: TestContext.Current.CancellationToken);
}
