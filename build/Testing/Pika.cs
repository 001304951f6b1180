using System.Globalization;

namespace Prewire.Testing;

/// <summary>Debian's python3-pika, an AMQP client not written here (tests/Shared/pika_client.py).</summary>
public static class Pika
{
    /// <summary>Runs one command of the script against <paramref name="uri"/>; returns what it printed.</summary>
    public static Task<string> RunAsync(string uri, string command, params string[] args) =>
        Tool.RunCheckedAsync("/usr/bin/python3", [Path.Combine(Repo.Root, "tests", "Shared", "pika_client.py"), command, uri, .. args], Repo.Root);

    /// <summary>One command against an amqps:// <paramref name="uri"/>, trusting the CA in <paramref name="caFile"/> (Python's ssl, the host name checked).</summary>
    public static Task<string> RunOverTlsAsync(string uri, string caFile, string command, params string[] args) =>
        Tool.RunCheckedAsync("/usr/bin/python3", [Path.Combine(Repo.Root, "tests", "Shared", "pika_client.py"), command, uri, .. args], Repo.Root,
            new Dictionary<string, string> { ["PREWIRE_CA_FILE"] = caFile });

    /// <summary>The messages ready in <paramref name="queue"/>, read from the queue itself (a passive declare).</summary>
    public static async Task<int> CountAsync(string uri, string queue) =>
        int.Parse((await RunAsync(uri, "count", queue).ConfigureAwait(false)).Trim(), CultureInfo.InvariantCulture);
}
