using System.Text.RegularExpressions;

namespace Prewire.Images;

/// <summary>
/// The smallest base a NativeAOT app runs on: exactly the C runtime files its binaries load (their
/// ELF interpreter and NEEDED libraries, read with readelf), what amqps needs (<see cref="TlsFiles"/>)
/// and a /tmp, built with umoci and pushed with skopeo to a <see cref="LocalRegistry"/>. It stands in
/// for runtime-deps, which cannot be pulled here; the SDK then builds on it as it would on that.
/// </summary>
[System.Runtime.Versioning.SupportedOSPlatform("linux")]
public static partial class BaseImage
{
    public const string Repository = "prewire/base";

    /// <summary>Builds the base for <paramref name="rid"/> from what <paramref name="binaries"/> need; returns its reference.</summary>
    public static async Task<string> PushAsync(LocalRegistry registry, string rid, IEnumerable<string> binaries, string workDirectory, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(registry);
        var platform = Platform.For(rid);
        var files = new SortedDictionary<string, string>(StringComparer.Ordinal);
        foreach (var binary in binaries)
        {
            foreach (var (inImage, onHost) in await CRuntimeFilesAsync(binary, platform, cancellationToken).ConfigureAwait(false))
                files[inImage] = onHost;
        }
        foreach (var (inImage, onHost) in TlsFiles(platform)) files[inImage] = onHost;

        if (Directory.Exists(workDirectory)) Directory.Delete(workDirectory, recursive: true);
        Directory.CreateDirectory(workDirectory);
        var image = $"layout:{rid}";
        await UmociAsync(workDirectory, cancellationToken, "init", "--layout", "layout").ConfigureAwait(false);
        await UmociAsync(workDirectory, cancellationToken, "new", "--image", image).ConfigureAwait(false);
        await UmociAsync(workDirectory, cancellationToken, "unpack", "--rootless", "--image", image, "bundle").ConfigureAwait(false);
        var rootfs = Path.Combine(workDirectory, "bundle", "rootfs");
        foreach (var (inImage, onHost) in files)
        {
            var target = Path.Combine(rootfs, inImage.TrimStart('/'));
            Directory.CreateDirectory(Path.GetDirectoryName(target)!);
            File.Copy(onHost, target);
        }
        // .NET and most programs expect a writable /tmp.
        Directory.CreateDirectory(Path.Combine(rootfs, "tmp"));
        File.SetUnixFileMode(Path.Combine(rootfs, "tmp"), (UnixFileMode)Convert.ToInt32("1777", 8));
        await UmociAsync(workDirectory, cancellationToken, "repack", "--image", image, "bundle").ConfigureAwait(false);
        await UmociAsync(workDirectory, cancellationToken, "config", "--image", image, "--os", "linux", "--architecture", platform.Architecture).ConfigureAwait(false);

        var reference = $"{registry.Address}/{Repository}:{rid}";
        await Tool.RunCheckedAsync("skopeo", ["copy", "--dest-tls-verify=false", $"oci:layout:{rid}", $"docker://{reference}"], workDirectory, cancellationToken: cancellationToken).ConfigureAwait(false);
        return reference;
    }

    /// <summary>The C runtime files one binary loads: path in the image, path on this machine.</summary>
    public static async Task<IReadOnlyList<(string InImage, string OnHost)>> CRuntimeFilesAsync(string binary, Platform platform, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(platform);
        var output = await Tool.RunCheckedAsync("readelf", ["--wide", "--dynamic", "--program-headers", binary], Repo.Root, cancellationToken: cancellationToken).ConfigureAwait(false);
        var interpreter = Interpreter().Match(output);
        if (!interpreter.Success) throw new InvalidDataException($"{binary} has no ELF interpreter: not a dynamically linked executable");
        var loader = interpreter.Groups["path"].Value;

        var files = new List<(string, string)> { (loader, platform.HostFile(Path.GetFileName(loader))) };
        foreach (Match needed in Needed().Matches(output))
        {
            var name = needed.Groups["name"].Value;
            // The loader itself is NEEDED by name and already in place.
            if (name == Path.GetFileName(loader)) continue;
            files.Add(($"{platform.ImageLibraryDirectory}/{name}", platform.HostFile(name)));
        }
        return files;
    }

    /// <summary>
    /// What TLS loads at run time, which readelf cannot see: .NET opens OpenSSL (libssl, libcrypto) with
    /// dlopen when the first TLS connection starts, and trusts the CA bundle at OpenSSL's default path
    /// (Debian's build: /usr/lib/ssl/cert.pem) for a broker whose certificate a public CA signed.
    /// </summary>
    public static IReadOnlyList<(string InImage, string OnHost)> TlsFiles(Platform platform)
    {
        ArgumentNullException.ThrowIfNull(platform);
        return
        [
            ($"{platform.ImageLibraryDirectory}/libssl.so.3", platform.HostFile("libssl.so.3")),
            ($"{platform.ImageLibraryDirectory}/libcrypto.so.3", platform.HostFile("libcrypto.so.3")),
            ("/usr/lib/ssl/cert.pem", "/etc/ssl/certs/ca-certificates.crt"),
        ];
    }

    private static Task<string> UmociAsync(string workDirectory, CancellationToken cancellationToken, params string[] args) =>
        Tool.RunCheckedAsync("umoci", args, workDirectory, cancellationToken: cancellationToken);

    [GeneratedRegex(@"Requesting program interpreter: (?<path>[^\]]+)\]")]
    private static partial Regex Interpreter();

    [GeneratedRegex(@"\(NEEDED\)\s+Shared library: \[(?<name>[^\]]+)\]")]
    private static partial Regex Needed();
}
