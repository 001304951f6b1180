using System.Text.Json.Nodes;

namespace Prewire.Images;

/// <summary>Runs an unpacked image with runc, the OCI reference runtime, in the foreground.</summary>
public static class Runc
{
    /// <summary>
    /// Starts the bundle's entrypoint with <paramref name="args"/> appended. Three settings of umoci's
    /// config.json change for a machine without a container daemon: no terminal (output is piped), no
    /// cgroup limits (the machine's cgroups refuse them), and the host's network namespace, so the
    /// app's loopback listener and the test broker are reachable as they are for the bare binary.
    /// </summary>
    public static async Task<AppProcess> StartAsync(string bundle, string id, IEnumerable<string> args, CancellationToken cancellationToken = default)
    {
        var configPath = Path.Combine(bundle, "config.json");
        var config = JsonNode.Parse(await File.ReadAllTextAsync(configPath, cancellationToken).ConfigureAwait(false))!.AsObject();
        var process = config["process"]!.AsObject();
        process["terminal"] = false;
        var processArgs = process["args"]!.AsArray();
        foreach (var arg in args) processArgs.Add(arg);
        var linux = config["linux"]!.AsObject();
        linux.Remove("resources");
        linux.Remove("cgroupsPath");
        var namespaces = linux["namespaces"]!.AsArray();
        foreach (var network in namespaces.Where(n => (string?)n!["type"] == "network").ToList()) namespaces.Remove(network);
        await File.WriteAllTextAsync(configPath, config.ToJsonString(), cancellationToken).ConfigureAwait(false);

        // A container left from an aborted run would hold the id.
        await Tool.RunAsync("runc", ["delete", "--force", id], bundle, cancellationToken: cancellationToken).ConfigureAwait(false);
        return AppProcess.StartThrough("runc", ["run", "--bundle", bundle, id], bundle);
    }
}
