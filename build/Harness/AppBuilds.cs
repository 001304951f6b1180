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
            var aot = await PublishStepAsync(app, Repo.HostRid, PublishMode.Aot).ConfigureAwait(false);
            var jit = await PublishStepAsync(app, Repo.HostRid, PublishMode.Jit).ConfigureAwait(false);
            var arm64 = await PublishStepAsync(app, Arm64Rid, PublishMode.Aot).ConfigureAwait(false);
            if (!aot.Succeeded || !jit.Succeeded || !arm64.Succeeded) return null;
            builds.Add(new AppBuilds(app, aot, jit, arm64));
        }
        return builds;

        async Task<PublishResult> PublishStepAsync(App app, string rid, PublishMode mode)
        {
            step++;
            output.WriteLine($"{verb}: [{step}/{steps}] publishing {app} ({mode}, {rid})...");
            var result = await Publishing.PublishAsync(app, rid, mode).ConfigureAwait(false);
            output.WriteLine(result.Succeeded
                ? $"{verb}: [{step}/{steps}] {app} ({mode}) published in {result.Duration.TotalSeconds:0.0} s, {Table.Mb(result.Size)}"
                : $"{verb}: [{step}/{steps}] {app} ({mode}) FAILED:\n{result.Errors}");
            return result;
        }
    }
}
