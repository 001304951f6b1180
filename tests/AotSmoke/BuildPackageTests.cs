using System.IO.Compression;
using System.Text.Json;
using System.Text.RegularExpressions;
using Prewire.Testing;

namespace Prewire.AotSmoke;

/// <summary>
/// Prewire.Build (src/Build) the way another team takes it: packed, then added with one
/// PackageReference to a <c>dotnet new console</c> app outside the repository, with its own nuget.config,
/// and published NativeAOT for each RID (linux-arm64 started under qemu). Each gate (warnings, size,
/// start-up) is seen failing and passing again once re-recorded. Its start-up gate is timed, so it runs
/// in the start-up gate's collection, with nothing else of the suite beside it.
/// </summary>
[Collection(nameof(StartupGateTests))]
public sealed partial class BuildPackageTests(BuildPackageTests.Feed feed) : IClassFixture<BuildPackageTests.Feed>
{
    public static TheoryData<string> EachRid => Rids.Each();

    [Theory]
    [MemberData(nameof(EachRid))]
    public async Task A_new_app_fails_and_passes_each_gate_as_its_files_say(string rid)
    {
        var app = await feed.NewAppAsync(rid);

        // A package's trim warning, not listed: the publish fails with ILC's line naming the package.
        await app.WriteAsync("Program.cs", "Console.WriteLine(Acme.Reflective.Finder.Find(args.Length > 0 ? args[0] : \"x\"));\n");
        var unlisted = await app.PublishAsync(rid, "-p:PrewireRecord=true");
        Assert.NotEqual(0, unlisted.ExitCode);
        Assert.Contains("error IL2104: Assembly 'Acme.Reflective' produced trim warnings", unlisted.Output, StringComparison.Ordinal);

        // Listed: it passes, and the budget is recorded for this RID.
        await app.WriteAsync("trim-warnings.allowlist", "# test\nAcme.Reflective | test: looks types up by name\n");
        var recorded = await app.PublishAsync(rid, "-p:PrewireRecord=true");
        Assert.True(recorded.ExitCode == 0, recorded.Output);
        Assert.Contains($"Size budget: recorded App {rid} at", recorded.Output, StringComparison.Ordinal);
        Assert.Contains($"Start-up gate: recorded App {rid} in", recorded.Output, StringComparison.Ordinal);
        var held = await app.PublishAsync(rid);
        Assert.True(held.ExitCode == 0, held.Output);
        Assert.Contains($"Size budget: App {rid} is", held.Output, StringComparison.Ordinal);
        Assert.Contains($"Start-up gate: App {rid} holds", held.Output, StringComparison.Ordinal);

        // 3 MB of data in the app: the budget fails, naming the app's assembly as what grew by 3 MB.
        await app.WriteAsync("Big.cs", BigArraySource(3 * 1024 * 1024));
        await app.WriteAsync("Program.cs", "Console.WriteLine(Acme.Reflective.Finder.Find(args.Length > 0 ? args[0] : \"x\"));\nConsole.WriteLine(Big.Data[args.Length]);\n");
        var grown = await app.PublishAsync(rid);
        Assert.NotEqual(0, grown.ExitCode);
        Assert.Matches(GrewByThreeMegabytes(), grown.Output);
        Assert.Equal(1, Regex.Count(grown.Output, "error PREWIRE021"));

        // Re-recorded, it passes again.
        Assert.Equal(0, (await app.PublishAsync(rid, "-p:PrewireRecord=true")).ExitCode);
        var again = await app.PublishAsync(rid);
        Assert.True(again.ExitCode == 0, again.Output);

        // Work added to the start: ~100,000 loop turns (a few hundred µs) fail the instruction count natively.
        // Under qemu only the clock is held, and its allowance grows with the floor's start (over a second
        // on a slow host): the sleep below is what it must catch there.
        if (!Qemu.Emulates(rid))
        {
            await app.WriteAsync("Program.cs", ProgramWithLoop);
            var slower = await app.PublishAsync(rid);
            Assert.NotEqual(0, slower.ExitCode);
            Assert.Equal(1, Regex.Count(slower.Output, "error PREWIRE031"));
            Assert.Contains("instructions beyond the NativeAOT floor (spawn to exit)", slower.Output, StringComparison.Ordinal);
            Assert.Equal(0, (await app.PublishAsync(rid, "-p:PrewireRecord=true")).ExitCode);
            var slowerRecorded = await app.PublishAsync(rid);
            Assert.True(slowerRecorded.ExitCode == 0, slowerRecorded.Output);
        }

        // A wait is no work: the instructions hold, and the clock catches it. Twice the recorded start (the
        // floor and the excess), so it stays past the allowance (a quarter of the floor and a share of the
        // excess) on a host twice as slow by the check as by the record.
        var sleepMs = (int)Math.Ceiling(2 * await app.RecordedAppMsAsync(rid));
        await app.WriteAsync("Program.cs", $"System.Threading.Thread.Sleep({sleepMs});\n{ProgramWithLoop}");
        var waits = await app.PublishAsync(rid);
        Assert.NotEqual(0, waits.ExitCode);
        Assert.Equal(1, Regex.Count(waits.Output, "error PREWIRE031"));
        // Natively the clock holds the time off the CPU; under qemu all of it.
        Assert.Contains(Qemu.Emulates(rid) ? "ms beyond the NativeAOT floor (spawn to exit" : "ms more off the CPU than the NativeAOT floor (spawn to exit", waits.Output, StringComparison.Ordinal);

        // The package's use gone, its allowlist line is stale: the publish says so.
        await app.WriteAsync("Program.cs", "Console.WriteLine(Big.Data[args.Length]);\n");
        var stale = await app.PublishAsync(rid, "-p:PrewireSizeBudget=false", "-p:PrewireStartupGate=false");
        Assert.NotEqual(0, stale.ExitCode);
        Assert.Contains("error PREWIRE015: Warning gate: allowlisted Acme.Reflective no longer warns: remove its line.", stale.Output, StringComparison.Ordinal);
    }

    [Fact]
    public async Task A_service_is_started_with_its_arguments_and_timed_to_its_ready_line_then_stopped()
    {
        var rid = Repo.HostRid;
        var app = await feed.NewAppAsync($"{rid}-service");
        await app.SetPropertiesAsync("<PrewireStartupArguments>--name gate</PrewireStartupArguments>", "<PrewireStartupReadyPattern>^listening on \\d+$</PrewireStartupReadyPattern>");
        // Runs until SIGTERM; without its two arguments it exits 3 before the ready line.
        await app.WriteAsync("Program.cs", """
            if (args is not ["--name", _]) return 3;
            using var stop = new ManualResetEventSlim();
            AppDomain.CurrentDomain.ProcessExit += (_, _) => stop.Set();
            Console.WriteLine("listening on 8080");
            stop.Wait();
            return 0;
            """);

        var recorded = await app.PublishAsync(rid, "-p:PrewireRecord=true");
        Assert.True(recorded.ExitCode == 0, recorded.Output);
        Assert.Contains($"Start-up gate: recorded App {rid} in", recorded.Output, StringComparison.Ordinal);
        Assert.Contains("spawn to ready", recorded.Output, StringComparison.Ordinal);
        var held = await app.PublishAsync(rid);
        Assert.True(held.ExitCode == 0, held.Output);
        Assert.Contains($"Start-up gate: App {rid} holds: spawn to ready", held.Output, StringComparison.Ordinal);

        var noArguments = await app.PublishAsync(rid, "-p:PrewireStartupArguments=");
        Assert.NotEqual(0, noArguments.ExitCode);
        Assert.Contains($"error PREWIRE031: Start-up gate: App {rid}: App exited with 3", noArguments.Output, StringComparison.Ordinal);
    }

    [Fact]
    public void The_package_holds_its_targets_tool_and_readme_and_nothing_of_the_repository()
    {
        using var package = ZipFile.OpenRead(feed.PackagePath);
        var entries = package.Entries.Select(e => e.FullName).Where(n => !n.StartsWith("_rels/", StringComparison.Ordinal) && !n.StartsWith("package/", StringComparison.Ordinal) && n != "[Content_Types].xml").Order(StringComparer.Ordinal);

        Assert.Equal(
            [
                "Prewire.Build.nuspec", "README.md",
                "build/Prewire.Build.SizeBudget.targets", "build/Prewire.Build.StartupGate.targets", "build/Prewire.Build.WarningGate.targets", "build/Prewire.Build.targets",
                "floor/Prewire.Build.Floor.csproj", "floor/Program.cs",
                "tools/Prewire.Build.deps.json", "tools/Prewire.Build.dll", "tools/Prewire.Build.runtimeconfig.json",
            ],
            entries);
        foreach (var entry in package.Entries)
        {
            using var reader = new StreamReader(entry.Open(), System.Text.Encoding.Latin1);
            Assert.DoesNotContain(Repo.Root, reader.ReadToEnd(), StringComparison.Ordinal);
        }
    }

    private const string ProgramWithLoop =
        "var x = 1L;\nfor (var i = 0; i < 100_000; i++) x = (x * 31) ^ i;\nConsole.WriteLine(x & 1);\nConsole.WriteLine(Acme.Reflective.Finder.Find(args.Length > 0 ? args[0] : \"x\"));\nConsole.WriteLine(Big.Data[args.Length]);\n";

    // A u8 literal: its bytes are field data in the image, which the mstat file credits to the field's assembly.
    private static string BigArraySource(int bytes)
    {
        var random = new Random(1);
        var text = string.Create(bytes, random, (span, r) => { for (var i = 0; i < span.Length; i++) span[i] = (char)('a' + r.Next(26)); });
        return $"static class Big {{ public static ReadOnlySpan<byte> Data => \"{text}\"u8; }}\n";
    }

    [GeneratedRegex(@"error PREWIRE021: Size budget: App linux-(x64|arm64) is [\d,]+ B, the budget [\d,]+ B \(\+\d+\.\d%, tolerance 2% either way\); grew: App \+3,1\d\d,\d\d\d B")]
    private static partial Regex GrewByThreeMegabytes();

    /// <summary>
    /// A folder outside the repository with a package source holding the freshly packed Prewire.Build
    /// and a package with a trim warning (Acme.Reflective), and a package folder of its own; what the
    /// machine already has is read from its global folder as a fallback (the NativeAOT toolchain is not
    /// downloaded again). The pack gets a version of its own, so a Prewire.Build restored earlier (the
    /// same version with other content) is never taken from that fallback: seen, with a test passing
    /// against the package it meant to fail.
    /// </summary>
    public sealed class Feed : IAsyncLifetime
    {
        private readonly string _root = Path.Combine(Path.GetTempPath(), $"prewire-build-package-{Guid.NewGuid():N}");

        public string PackagePath { get; private set; } = "";

        private readonly string _version = $"0.1.0-check.{Guid.NewGuid():N}";

        public async ValueTask InitializeAsync()
        {
            var feed = Path.Combine(_root, "feed");
            Directory.CreateDirectory(feed);
            // --no-build: packs the tool this test project's build made (src/Build is a reference of it), so it
            // never compiles src/Build beside an app's restore packing it (build/BuildPackage.targets).
            await Tool.RunCheckedAsync("dotnet", ["pack", Path.Combine(Repo.Root, "src", "Build"), "-c", "Release", "--no-build", "-o", feed, $"-p:PackageVersion={_version}"], Repo.Root).ConfigureAwait(false);
            PackagePath = Directory.GetFiles(feed, "Prewire.Build.*.nupkg").Single();
            var globalPackages = (await Tool.RunCheckedAsync("dotnet", ["nuget", "locals", "global-packages", "--list"], Repo.Root).ConfigureAwait(false)).Split("global-packages:")[1].Trim();
            await File.WriteAllTextAsync(Path.Combine(_root, "nuget.config"), $"""
                <?xml version="1.0" encoding="utf-8"?>
                <configuration>
                  <config><add key="globalPackagesFolder" value="packages" /></config>
                  <packageSources><add key="local" value="feed" /></packageSources>
                  <fallbackPackageFolders><add key="machine" value="{globalPackages}" /></fallbackPackageFolders>
                </configuration>
                """).ConfigureAwait(false);
            var library = Path.Combine(_root, "Acme.Reflective");
            Directory.CreateDirectory(library);
            await File.WriteAllTextAsync(Path.Combine(library, "Acme.Reflective.csproj"), """
                <Project Sdk="Microsoft.NET.Sdk">
                  <PropertyGroup><TargetFramework>net10.0</TargetFramework><Nullable>enable</Nullable><Version>1.0.0</Version></PropertyGroup>
                </Project>
                """).ConfigureAwait(false);
            await File.WriteAllTextAsync(Path.Combine(library, "Finder.cs"),
                "namespace Acme.Reflective;\npublic static class Finder\n{\n    public static System.Type? Find(string name) => System.Type.GetType(name);\n}\n").ConfigureAwait(false);
            await Tool.RunCheckedAsync("dotnet", ["pack", library, "-c", "Release", "-o", feed], _root).ConfigureAwait(false);
        }

        /// <summary>A new console app for <paramref name="rid"/> that references both packages.</summary>
        public async Task<NewApp> NewAppAsync(string rid)
        {
            var directory = Path.Combine(_root, rid, "App");
            await Tool.RunCheckedAsync("dotnet", ["new", "console", "-o", directory, "-n", "App"], _root).ConfigureAwait(false);
            await Tool.RunCheckedAsync("dotnet", ["add", directory, "package", "Prewire.Build", "--version", _version], _root).ConfigureAwait(false);
            await Tool.RunCheckedAsync("dotnet", ["add", directory, "package", "Acme.Reflective", "--version", "1.0.0"], _root).ConfigureAwait(false);
            // As a container service would: and the arm64 C runtime here has no ICU for qemu to load.
            var project = Path.Combine(directory, "App.csproj");
            await File.WriteAllTextAsync(project, (await File.ReadAllTextAsync(project).ConfigureAwait(false))
                .Replace("<Nullable>enable</Nullable>", "<Nullable>enable</Nullable>\n    <InvariantGlobalization>true</InvariantGlobalization>", StringComparison.Ordinal)).ConfigureAwait(false);
            return new NewApp(directory);
        }

        public ValueTask DisposeAsync()
        {
            Directory.Delete(_root, recursive: true);
            return ValueTask.CompletedTask;
        }
    }

    /// <summary>The app a user made, its files written and its publishes run.</summary>
    public sealed class NewApp(string directory)
    {
        public Task WriteAsync(string file, string text) => File.WriteAllTextAsync(Path.Combine(directory, file), text);

        /// <summary>Adds <paramref name="properties"/> to the project's first property group.</summary>
        public async Task SetPropertiesAsync(params string[] properties)
        {
            var project = Path.Combine(directory, "App.csproj");
            var text = await File.ReadAllTextAsync(project).ConfigureAwait(false);
            await File.WriteAllTextAsync(project, text.Replace("</PropertyGroup>", $"  {string.Join("\n    ", properties)}\n  </PropertyGroup>", StringComparison.Ordinal)).ConfigureAwait(false);
        }

        /// <summary>The app's recorded start for <paramref name="rid"/>, in ms (startup-baseline.json).</summary>
        public async Task<double> RecordedAppMsAsync(string rid)
        {
            using var baseline = JsonDocument.Parse(await File.ReadAllTextAsync(Path.Combine(directory, "startup-baseline.json")).ConfigureAwait(false));
            return baseline.RootElement.GetProperty("entries").EnumerateArray().Single(e => e.GetProperty("rid").GetString() == rid).GetProperty("appMs").GetDouble();
        }

        public async Task<(int ExitCode, string Output)> PublishAsync(string rid, params string[] extra) =>
            await Tool.RunAsync("dotnet", ["publish", "-r", rid, "-p:PublishAot=true", .. extra], directory).ConfigureAwait(false);
    }
}
