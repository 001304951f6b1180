using System.Net;
using Prewire.Testing;
using Prewire.Images;

namespace Prewire.AotSmoke;

/// <summary>Each app's OCI image, per RID: its configuration, its contents, and the binary running from it.</summary>
public sealed class ContainerTests(PublishedApps published, ContainerImages images)
{
    public static TheoryData<string, string> AppsByRid => Rids.AppsByRid();

    [Theory]
    [MemberData(nameof(AppsByRid))]
    public async Task The_image_runs_the_single_file_binary_as_a_non_root_user(string appName, string rid)
    {
        var ct = TestContext.Current.CancellationToken;
        var app = App.Named(appName);
        var image = await images.GetAsync(published, app, rid);
        Assert.True(image.Publish.Succeeded, $"PublishContainer of {app} for {rid} failed ({image.Publish.ExitCode}):\n{image.Publish.Errors}\n{image.Publish.Output}");

        var config = await image.ReadConfigAsync(ct);
        Assert.Equal(("linux", Platform.For(rid).Architecture), (config.Os, config.Architecture));
        Assert.Equal([$"/app/{app.ExecutableName}"], config.Entrypoint);
        Assert.False(string.IsNullOrEmpty(config.User) || config.User is "0" or "root", $"runs as '{config.User}'");
        Assert.Equal("1.0.0", config.Labels.GetValueOrDefault("org.opencontainers.image.version"));
        var head = (await Tool.RunCheckedAsync("git", ["rev-parse", "HEAD"], Repo.Root, cancellationToken: ct)).Trim();
        Assert.Equal(head, config.Labels.GetValueOrDefault("org.opencontainers.image.revision"));

        var bundle = await image.UnpackAsync(ct);
        var rootfs = Path.Combine(bundle, "rootfs");
        // The app's folder holds the one binary: no .dbg, no PDBs, no docs.
        Assert.Equal([app.ExecutableName], Directory.GetFiles(Path.Combine(rootfs, "app")).Select(Path.GetFileName));
        Assert.Empty(Directory.GetFiles(rootfs, "*.dbg", SearchOption.AllDirectories));

        var args = AppRuns.Arguments(app, brokerUri: null, out var baseAddress);
        await using var process = Qemu.Emulates(rid)
            // Not runnable by runc here: the unpacked root's own binary and C runtime, under qemu.
            ? AppProcess.Start(Path.Combine(rootfs, config.Entrypoint[0].TrimStart('/')), args, rid: rid, sysRoot: rootfs)
            : await Runc.StartAsync(bundle, $"prewire-smoke-{app.Name.ToLowerInvariant()}-{Environment.ProcessId}", args, ct);
        await process.WaitForReadyAsync(AppRuns.ReadyTimeout(rid));
        if (baseAddress is not null)
        {
            using var http = new HttpClient { BaseAddress = baseAddress };
            using var health = await http.GetAsync(new Uri("health/live", UriKind.Relative), ct);
            Assert.Equal(HttpStatusCode.OK, health.StatusCode);
            process.Terminate();
        }
        Assert.Equal(0, await process.WaitForExitAsync(AppRuns.ExitTimeout(rid)));

        TestContext.Current.TestOutputHelper?.WriteLine(
            $"{app} {rid}: image {Table.Mb(await image.CompressedSizeAsync(ct))} compressed, binary {Table.Mb(new FileInfo(image.Publish.ExecutablePath).Length)}");
    }

    public static TheoryData<string> EachRid => Rids.Each();

    // OpenSSL is opened at run time (dlopen), so readelf does not list it: the image must carry it anyway.
    [Theory]
    [MemberData(nameof(EachRid))]
    public async Task The_Consumer_image_connects_over_amqps_with_what_it_carries(string rid)
    {
        var ct = TestContext.Current.CancellationToken;
        var image = await images.GetAsync(published, App.Consumer, rid);
        Assert.True(image.Publish.Succeeded, $"PublishContainer of the Consumer for {rid} failed:\n{image.Publish.Errors}");
        var config = await image.ReadConfigAsync(ct);
        var bundle = await image.UnpackAsync(ct);
        var rootfs = Path.Combine(bundle, "rootfs");
        // The broker's test CA, put where the app can read it: /tmp inside the container.
        File.Copy(TestBroker.CaFile, Path.Combine(rootfs, "tmp", "prewire-ca.pem"), overwrite: true);

        await using var process = Qemu.Emulates(rid)
            ? AppProcess.Start(Path.Combine(rootfs, config.Entrypoint[0].TrimStart('/')), Arguments(Path.Combine(rootfs, "tmp", "prewire-ca.pem")), rid: rid, sysRoot: rootfs)
            : await Runc.StartAsync(bundle, $"prewire-smoke-tls-{Environment.ProcessId}", Arguments("/tmp/prewire-ca.pem"), ct);

        // --count 0: connect, declare, say ready, exit 0. Only a TLS connection that held gets there.
        Assert.Equal(0, await process.WaitForExitAsync(AppRuns.ReadyTimeout(rid)));
        Assert.Contains($"Connected to amqps://127.0.0.1:{TestBroker.TlsUri.Port}/", process.Stdout + process.Stderr, StringComparison.Ordinal);

        static string[] Arguments(string caFile) =>
            ["--uri", TestBroker.TlsUri.ToString(), "--ca-file", caFile, "--client", "prewire", "--queue", $"aotsmoke.image-tls.{Guid.NewGuid():N}", "--count", "0"];
    }
}
