using System.Diagnostics;

namespace Prewire.Testing;

/// <summary>
/// Debian's amqp-tools (librabbitmq's command line clients), an AMQP client not written here: bodies go
/// in on standard input and come out on standard output, byte for byte.
/// </summary>
public static class AmqpTools
{
    /// <summary>amqp-publish: one message to <paramref name="queue"/> through the default exchange, <paramref name="options"/> as the tool takes them.</summary>
    public static async Task PublishAsync(Uri uri, string queue, ReadOnlyMemory<byte> body, params string[] options)
    {
        var (exitCode, _, errors) = await RunAsync("amqp-publish", ["-u", Url(uri), "-r", queue, .. options], body).ConfigureAwait(false);
        if (exitCode != 0) throw new InvalidOperationException($"amqp-publish to {queue} exited with {exitCode}: {errors}");
    }

    /// <summary>amqp-get: the body of the next message in <paramref name="queue"/> (acknowledged), or null when it is empty.</summary>
    public static async Task<byte[]?> GetAsync(Uri uri, string queue)
    {
        var (exitCode, body, errors) = await RunAsync("amqp-get", ["-u", Url(uri), "-q", queue], ReadOnlyMemory<byte>.Empty).ConfigureAwait(false);
        // 2: the queue was empty.
        return exitCode switch
        {
            0 => body,
            2 => null,
            _ => throw new InvalidOperationException($"amqp-get from {queue} exited with {exitCode}: {errors}"),
        };
    }

    // librabbitmq reads the path after the authority as the vhost: "/" must be spelled %2F, an empty path is the default.
    private static string Url(Uri uri) => $"{uri.Scheme}://{uri.UserInfo}@{uri.Host}:{uri.Port}/{Uri.EscapeDataString(uri.AbsolutePath.Length > 1 ? Uri.UnescapeDataString(uri.AbsolutePath[1..]) : "/")}";

    private static async Task<(int ExitCode, byte[] Output, string Errors)> RunAsync(string tool, string[] args, ReadOnlyMemory<byte> input)
    {
        var start = new ProcessStartInfo(tool) { RedirectStandardInput = true, RedirectStandardOutput = true, RedirectStandardError = true, UseShellExecute = false };
        foreach (var arg in args) start.ArgumentList.Add(arg);
        using var process = Process.Start(start) ?? throw new InvalidOperationException($"{tool} did not start (is amqp-tools installed? build/bootstrap.sh)");
        using var output = new MemoryStream();
        var reading = process.StandardOutput.BaseStream.CopyToAsync(output);
        var errors = process.StandardError.ReadToEndAsync();
        await process.StandardInput.BaseStream.WriteAsync(input).ConfigureAwait(false);
        process.StandardInput.Close();
        await Task.WhenAll(reading, errors, process.WaitForExitAsync()).ConfigureAwait(false);
        return (process.ExitCode, output.ToArray(), (await errors.ConfigureAwait(false)).Trim());
    }
}
