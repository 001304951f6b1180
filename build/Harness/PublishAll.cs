namespace Prewire.Harness;

/// <summary>`./build.sh publish [rid...]`: every app, NativeAOT, into artifacts/publish/&lt;rid&gt;/aot/&lt;app&gt;.</summary>
public static class PublishAll
{
    public static async Task<int> RunAsync(IReadOnlyList<string> rids, TextWriter output)
    {
        ArgumentNullException.ThrowIfNull(rids);
        ArgumentNullException.ThrowIfNull(output);
        var rows = new List<string[]>();
        var failed = 0;
        foreach (var rid in rids)
        {
            foreach (var app in App.All)
            {
                output.WriteLine($"publish: {app} ({rid}, NativeAOT)...");
                var result = await Publishing.PublishAsync(app, rid, PublishMode.Aot).ConfigureAwait(false);
                if (result.Succeeded)
                {
                    rows.Add([app.Name, rid, Table.Mb(result.Size), $"{result.Duration.TotalSeconds:0.0} s", Path.GetRelativePath(Repo.Root, result.ExecutablePath)]);
                    continue;
                }
                failed++;
                rows.Add([app.Name, rid, "-", $"{result.Duration.TotalSeconds:0.0} s", "FAILED"]);
                output.WriteLine(result.MissingAotPacksMessage ?? result.Errors);
                // Every app needs the same packs: say it once per RID, not three times.
                if (result.MissingAotPacks) break;
            }
        }
        Table.Write(output, ["app", "rid", "size", "publish", "output"], rows);
        return failed == 0 ? 0 : 1;
    }
}
