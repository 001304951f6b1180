namespace Prewire.Harness;

/// <summary>
/// <c>./build.sh startup-order</c>: writes each app's <c>startup-order.txt</c>, the managed methods its
/// default build (this host's RID) runs from spawn to its ready line, first without a broker and then
/// with one, in the order it first runs them. ILC lays them out first, one after another
/// (<c>IlcOrderFile</c>, build/NativeAot.props), so a start faults in a few windows of code instead
/// of one for every method scattered over the binary. Run it after a change to what the apps do at start.
/// </summary>
public static class StartupOrder
{
    public const string FileName = "startup-order.txt";

    public static async Task<int> RunAsync(string brokerUri, TextWriter output)
    {
        ArgumentNullException.ThrowIfNull(output);
        var rid = Repo.HostRid;
        if (!StartupTrace.Traces(rid))
        {
            output.WriteLine($"startup-order: cannot trace {rid} here (valgrind: build/bootstrap.sh installs it)");
            return 1;
        }
        foreach (var app in App.All)
        {
            output.WriteLine($"startup-order: {app} ({rid}): publishing, tracing its start...");
            var aot = await Publishing.PublishAsync(app, rid, PublishMode.Aot).ConfigureAwait(false);
            if (!aot.Succeeded)
            {
                output.WriteLine($"startup-order: {app} ({rid}) FAILED to publish:\n{aot.Errors}");
                return 1;
            }
            var alone = await StartupTrace.RunAsync(aot, AppRuns.Arguments(app, null, out _), app.IsWeb).ConfigureAwait(false);
            var connected = await StartupTrace.RunAsync(aot, app.IsWeb ? AppRuns.Arguments(app, brokerUri, out _) : ["--uri", brokerUri, "--count", "0"], app.IsWeb).ConfigureAwait(false);
            var methods = alone.Methods.Concat(connected.Methods).Distinct().ToList();
            var path = Path.Combine(Repo.Root, app.ProjectDirectory, FileName);
            // ILC skips a line that names no method, so the first one can say where the file comes from.
            await File.WriteAllLinesAsync(path, [$"# written by ./build.sh startup-order from {app}'s start ({rid}), without a broker and with one; {methods.Count} methods", .. methods]).ConfigureAwait(false);
            output.WriteLine($"startup-order: {app}: {methods.Count} methods ({alone.Methods.Count} to ready without a broker, {alone.CodeBytes:N0} B run in {alone.CodeWindows} windows of 64 KiB) -> {Path.GetRelativePath(Repo.Root, path)}");
        }
        return 0;
    }
}
