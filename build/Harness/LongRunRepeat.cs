namespace Prewire.Harness;

/// <summary>
/// `./build.sh long-run [rounds] [rid]`: the smoke tests' long-run check (<see cref="LongRunApps"/>), that
/// many rounds on the unchanged apps and on a build of each whose per-message path keeps 64 B once every
/// 5,000 messages (<see cref="LeakFixture"/>), alternately. Every failure of the unchanged apps is a false
/// one, every pass of the leaking ones a miss: run it under the load the check must stand.
/// </summary>
public static class LongRunRepeat
{
    public static async Task<int> RunAsync(int rounds, string rid, string broker, TextWriter output)
    {
        ArgumentNullException.ThrowIfNull(output);
        var builds = new Dictionary<string, (PublishResult Publisher, PublishResult Consumer)>
        {
            ["unchanged"] = (await Publishing.PublishAsync(App.Publisher, rid, PublishMode.Aot).ConfigureAwait(false), await Publishing.PublishAsync(App.Consumer, rid, PublishMode.Aot).ConfigureAwait(false)),
            [$"64 B kept every {LeakFixture.Every:N0}"] = (await LeakFixture.PublishAsync(App.Publisher, rid).ConfigureAwait(false), await LeakFixture.PublishAsync(App.Consumer, rid).ConfigureAwait(false)),
        };
        if (builds.Values.SelectMany(b => new[] { b.Publisher, b.Consumer }).FirstOrDefault(p => !p.Succeeded) is { } failed)
        {
            output.WriteLine($"long-run: the {failed.App} did not publish:\n{failed.Errors}");
            return 1;
        }

        var checks = builds.Keys.ToDictionary(b => b, _ => new List<LongRunCheck>());
        for (var round = 1; round <= rounds; round++)
        {
            foreach (var (build, (publisher, consumer)) in builds)
            {
                var (p, c) = await LongRunApps.RunAsync(publisher.ExecutablePath, consumer.ExecutablePath, rid, broker).ConfigureAwait(false);
                output.WriteLine($"long-run: round {round}, {build}: {p}; {c}");
                checks[build].AddRange([p, c]);
            }
        }

        var rows = checks.SelectMany(b => b.Value.GroupBy(c => c.App).Select(app => (string[])
        [
            rid, b.Key, app.Key, $"{app.Count(c => !c.Passed)}/{app.Count()}",
            $"{app.Min(c => c.Grew)} / {app.Max(c => c.Grew)} of {app.First().Intervals}",
            $"{app.Min(c => c.HeapEnd - c.HeapWarm):+#,0;-#,0;0} / {app.Max(c => c.HeapEnd - c.HeapWarm):+#,0;-#,0;0}",
            $"{app.Max(c => c.ExtraBytes):N0}",
        ]));
        Table.Write(output, ["rid", "build", "app", "check failed", "intervals the heap grew in (least / most)", "heap, warm to end (B, least / most)", "most B allocated beyond the cheapest interval's rate"], [.. rows]);
        return 0;
    }
}
