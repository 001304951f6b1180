using Prewire.Harness;

namespace Prewire.AotSmoke;

/// <summary>Each app, published with NativeAOT for each RID: warnings, output shape, a real run.</summary>
public sealed class PublishTests(PublishedApps published)
{
    public static TheoryData<string, string> AppsByRid => Rids.AppsByRid();

    [Theory]
    [MemberData(nameof(AppsByRid))]
    public async Task Publish_reports_no_warning_from_our_code_and_exactly_the_allowlisted_package_warnings(string appName, string rid)
    {
        var result = await published.GetSucceededAsync(App.Named(appName), rid);

        var actual = result.TrimWarnings.OrderBy(w => w.ToString(), StringComparer.Ordinal).ToList();
        var expected = Allowlist.Entries.Select(e => e.Warning).OrderBy(w => w.ToString(), StringComparer.Ordinal).ToList();
        var report = "warnings reported:\n  " + string.Join("\n  ", actual);
        Assert.DoesNotContain(actual, w => w.Member.StartsWith("Prewire.", StringComparison.Ordinal));
        Assert.True(expected.SequenceEqual(actual), report);
    }

    [Theory]
    [MemberData(nameof(AppsByRid))]
    public async Task Output_is_one_native_executable_for_the_rid(string appName, string rid)
    {
        var result = await published.GetSucceededAsync(App.Named(appName), rid);

        var files = Directory.GetFiles(result.Directory).Select(Path.GetFileName).ToList();
        Assert.Equal([result.App.ExecutableName], files);

        var elf = ElfHeader.Read(result.ExecutablePath);
        Assert.True(elf.Is64Bit && elf.IsLittleEndian, $"{elf}");
        Assert.Equal(ElfHeader.MachineFor(rid), elf.Machine);
        // NativeAOT links position-independent executables, which ELF types as shared objects.
        Assert.Contains(elf.Type, new[] { ElfType.Executable, ElfType.SharedObject });
        Assert.True((File.GetUnixFileMode(result.ExecutablePath) & UnixFileMode.UserExecute) != 0, "not executable");
    }

    [Theory]
    [MemberData(nameof(AppsByRid))]
    public async Task Runs_to_its_ready_line_and_exits_cleanly(string appName, string rid)
    {
        var app = App.Named(appName);
        var result = await published.GetSucceededAsync(app, rid);
        var broker = Repo.BrokerUri();
        Assert.True(app.IsWeb || broker is not null, "no broker: run the tests through ./build.sh test, which starts one");

        await using var process = AppRuns.Start(app, result.ExecutablePath, rid, broker, out _);
        await process.WaitForReadyAsync(AppRuns.ReadyTimeout);
        if (app.IsWeb) process.Terminate();

        Assert.Equal(0, await process.WaitForExitAsync(AppRuns.ExitTimeout));
        Assert.Equal("", process.Stderr);
        if (!app.IsWeb) Assert.Contains("Connected to amqp://127.0.0.1:", process.Stdout, StringComparison.Ordinal);
    }
}
