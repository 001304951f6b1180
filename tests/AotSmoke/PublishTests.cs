using ELFSharp.ELF;
using Prewire.Testing;

namespace Prewire.AotSmoke;

/// <summary>Each app, published with NativeAOT for each RID: warnings, output shape, a real run.</summary>
public sealed class PublishTests(PublishedApps published)
{
    public static TheoryData<string, string> AppsByRid => Rids.AppsByRid();

    [Theory]
    [MemberData(nameof(AppsByRid))]
    public async Task Publish_has_no_trim_or_AOT_warning_from_our_assemblies_and_only_allowlisted_packages_warn(string appName, string rid)
    {
        var result = await published.GetSucceededAsync(App.Named(appName), rid);

        var report = "warnings reported:\n  " + string.Join("\n  ", result.TrimWarnings);
        Assert.DoesNotContain(result.TrimWarnings, w => !w.IsPackage);
        Assert.True(result.GateFailures.Count == 0, string.Join('\n', result.GateFailures) + "\n" + report);
    }

    [Theory]
    [MemberData(nameof(AppsByRid))]
    public async Task Output_is_one_native_executable_for_the_rid(string appName, string rid)
    {
        var result = await published.GetSucceededAsync(App.Named(appName), rid);

        var files = Directory.GetFiles(result.Directory).Select(Path.GetFileName).ToList();
        Assert.Equal([result.App.ExecutableName], files);

        using var elf = ELFReader.Load(result.ExecutablePath);
        Assert.Equal((Class.Bit64, ELFSharp.Endianess.LittleEndian), (elf.Class, elf.Endianess));
        Assert.Equal(Elf.MachineFor(rid), elf.Machine);
        // NativeAOT links position-independent executables, which ELF types as shared objects.
        Assert.Contains(elf.Type, new[] { FileType.Executable, FileType.SharedObject });
        Assert.True((File.GetUnixFileMode(result.ExecutablePath) & UnixFileMode.UserExecute) != 0, "not executable");
    }

    [Theory]
    [MemberData(nameof(AppsByRid))]
    public async Task Runs_to_its_ready_line_and_exits_cleanly(string appName, string rid)
    {
        var app = App.Named(appName);
        var result = await published.GetSucceededAsync(app, rid);
        var broker = app.IsWeb ? null : TestBroker.Uri.ToString();

        await using var process = AppRuns.Start(app, result.ExecutablePath, rid, broker, out _);
        await process.WaitForReadyAsync(AppRuns.ReadyTimeout(rid));
        // The web app and the Consumer (a worker: no --count) run until stopped.
        if (app.RunsUntilStopped(broker is not null)) process.Terminate();

        Assert.Equal(0, await process.WaitForExitAsync(AppRuns.ExitTimeout(rid)));
        Assert.Equal("", process.Stderr);
        if (!app.IsWeb) Assert.Contains("Connected to amqp://127.0.0.1:", process.Stdout, StringComparison.Ordinal);
    }
}
