using System.Diagnostics;

namespace Prewire.Images;

/// <summary>
/// Debian's <c>docker-registry</c> (the CNCF distribution registry) on a free loopback port, with its
/// storage in a folder of its own: the SDK's container support takes a base image only from a
/// registry, and no public one is reachable here. Disposing stops it.
/// </summary>
public sealed class LocalRegistry : IAsyncDisposable
{
    private readonly Process _process;

    private LocalRegistry(Process process, string address)
    {
        _process = process;
        Address = address;
    }

    /// <summary><c>127.0.0.1:port</c>, as image references and DOTNET_CONTAINER_INSECURE_REGISTRIES name it.</summary>
    public string Address { get; }

    public static async Task<LocalRegistry> StartAsync(string directory, CancellationToken cancellationToken = default)
    {
        Directory.CreateDirectory(directory);
        var address = $"127.0.0.1:{FreePort.Next()}";
        var config = Path.Combine(directory, "config.yml");
        await File.WriteAllTextAsync(config, $"""
            version: 0.1
            log:
              level: warn
            storage:
              filesystem:
                rootdirectory: {Path.Combine(directory, "storage")}
            http:
              addr: {address}
            """, cancellationToken).ConfigureAwait(false);

        var start = new ProcessStartInfo("docker-registry", ["serve", config])
        {
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            UseShellExecute = false,
        };
        Process process;
        try
        {
            process = Process.Start(start)!;
        }
        catch (System.ComponentModel.Win32Exception e)
        {
            throw new InvalidOperationException("docker-registry is not installed (build/bootstrap.sh installs it)", e);
        }
        // Drained so a chatty registry never blocks on a full pipe.
        process.OutputDataReceived += (_, _) => { };
        process.ErrorDataReceived += (_, _) => { };
        process.BeginOutputReadLine();
        process.BeginErrorReadLine();

        var registry = new LocalRegistry(process, address);
        using var http = new HttpClient { Timeout = TimeSpan.FromSeconds(2) };
        var waited = Stopwatch.StartNew();
        while (!await ServesAsync(http, new Uri($"http://{address}/v2/"), cancellationToken).ConfigureAwait(false))
        {
            if (process.HasExited || waited.Elapsed > TimeSpan.FromSeconds(20))
            {
                await registry.DisposeAsync().ConfigureAwait(false);
                throw new InvalidOperationException($"docker-registry did not serve on {address} within 20 s");
            }
            await Task.Delay(100, cancellationToken).ConfigureAwait(false);
        }
        return registry;
    }

    private static async Task<bool> ServesAsync(HttpClient http, Uri uri, CancellationToken cancellationToken)
    {
        try
        {
            using var response = await http.GetAsync(uri, cancellationToken).ConfigureAwait(false);
            return response.IsSuccessStatusCode;
        }
        catch (HttpRequestException)
        {
            return false;
        }
        catch (TaskCanceledException) when (!cancellationToken.IsCancellationRequested)
        {
            return false;
        }
    }

    public async ValueTask DisposeAsync()
    {
        if (!_process.HasExited)
        {
            _process.Kill(entireProcessTree: true);
            await _process.WaitForExitAsync().ConfigureAwait(false);
        }
        _process.Dispose();
    }
}
