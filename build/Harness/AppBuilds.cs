namespace Prewire.Harness;

/// <summary>
/// One app published the three ways the demo and the baseline measure it: NativeAOT and a
/// self-contained JIT build for this host, and NativeAOT for linux-arm64 (run under qemu here).
/// </summary>
public sealed record AppBuilds(App App, PublishResult Aot, PublishResult Jit, PublishResult Arm64)
{
    public const string Arm64Rid = "linux-arm64";

    /// <summary>The NativeAOT build for <paramref name="rid"/>: this host's or linux-arm64.</summary>
    public PublishResult AotFor(string rid) => rid == Repo.HostRid ? Aot : Arm64;

    /// <summary>Publishes every app, one publish at a time, saying each step; null when one failed (its errors are printed).</summary>
    public static async Task<IReadOnlyList<AppBuilds>?> PublishAllAsync(string verb, TextWriter output)
    {
        ArgumentNullException.ThrowIfNull(output);
        var builds = new List<AppBuilds>();
        var step = 0;
        var steps = App.All.Count * 3;
        foreach (var app in App.All)
        {
            var aot = await StepAsync(app, Repo.HostRid, PublishMode.Aot).ConfigureAwait(false);
            var jit = await StepAsync(app, Repo.HostRid, PublishMode.Jit).ConfigureAwait(false);
            var arm64 = await StepAsync(app, Arm64Rid, PublishMode.Aot).ConfigureAwait(false);
            if (!aot.Succeeded || !jit.Succeeded || !arm64.Succeeded) return null;
            builds.Add(new AppBuilds(app, aot, jit, arm64));
        }
        return builds;

        Task<PublishResult> StepAsync(App app, string rid, PublishMode mode) => PublishStepAsync($"{verb}: [{++step}/{steps}]", app, rid, mode, AmqpClients.Prewire, output);
    }

    /// <summary>
    /// <paramref name="apps"/> built for every client (<see cref="AppClient.All"/>: the default build and the
    /// both-clients one), keyed by app and build; null when one failed (its errors are printed).
    /// </summary>
    public static async Task<IReadOnlyDictionary<(App App, AmqpClients Clients), PublishResult>?> PublishForClientsAsync(string verb, IEnumerable<App> apps, string rid, PublishMode mode, TextWriter output)
    {
        var builds = new Dictionary<(App, AmqpClients), PublishResult>();
        foreach (var app in apps)
        {
            foreach (var clients in AppClient.All.Select(c => c.Build).Distinct())
            {
                var result = await PublishStepAsync($"{verb}:", app, rid, mode, clients, output).ConfigureAwait(false);
                if (!result.Succeeded) return null;
                builds[(app, clients)] = result;
            }
        }
        return builds;
    }

    /// <summary>One publish, said before and after (its errors when it failed) with <paramref name="prefix"/>.</summary>
    public static async Task<PublishResult> PublishStepAsync(string prefix, App app, string rid, PublishMode mode, AmqpClients clients, TextWriter output)
    {
        ArgumentNullException.ThrowIfNull(output);
        var what = clients == AmqpClients.Both ? $"{mode}, both clients" : $"{mode}";
        output.WriteLine($"{prefix} publishing {app} ({what}, {rid})...");
        var result = await Publishing.PublishAsync(app, rid, mode, clients).ConfigureAwait(false);
        output.WriteLine(result.Succeeded
            ? $"{prefix} {app} ({what}) published in {result.Duration.TotalSeconds:0.0} s, {Table.Mb(result.Size)}"
            : $"{prefix} {app} ({what}) FAILED:\n{result.Errors}");
        return result;
    }
}
