using System.Globalization;

namespace Prewire.Harness;

/// <summary>
/// The HttpEndpoint against Microsoft's <c>webapiaot</c> template (<see cref="WebTemplate"/>), both
/// published NativeAOT in the same run with the same SDK: binary size, spawn to the ready line, spawn to
/// the first answered request, the two started alternately run by run so a load that comes and goes
/// hits both alike.
/// </summary>
[System.Runtime.Versioning.SupportedOSPlatform("linux")]
public static class TemplateComparison
{
    public static async Task<bool> RunAsync(IReadOnlyList<AppBuilds> builds, int runs, TextWriter output)
    {
        ArgumentNullException.ThrowIfNull(builds);
        ArgumentNullException.ThrowIfNull(output);
        var endpoint = builds.Single(b => b.App == App.HttpEndpoint);
        var rows = new List<string[]>();
        foreach (var rid in Repo.Rids)
        {
            output.WriteLine($"report: webapiaot template ({rid}): publishing...");
            var template = await WebTemplate.PublishAsync(rid, output).ConfigureAwait(false);
            if (!template.Succeeded)
            {
                output.WriteLine($"report: webapiaot template ({rid}) FAILED:\n{template.Errors}");
                return false;
            }
            var ours = endpoint.AotFor(rid);
            output.WriteLine($"report: HttpEndpoint against webapiaot ({rid}): start-up...");
            var n = RunsFor(rid, runs);
            await WebStartRun.RunAsync(App.HttpEndpoint, ours.ExecutablePath, rid).ConfigureAwait(false);
            await WebStartRun.RunAsync(WebTemplate.App, template.ExecutablePath, rid).ConfigureAwait(false);
            var (oursRuns, templateRuns) = (new List<WebStartRun>(), new List<WebStartRun>());
            for (var i = 0; i < n; i++)
            {
                oursRuns.Add(await WebStartRun.RunAsync(App.HttpEndpoint, ours.ExecutablePath, rid).ConfigureAwait(false));
                templateRuns.Add(await WebStartRun.RunAsync(WebTemplate.App, template.ExecutablePath, rid).ConfigureAwait(false));
            }
            var (o, t) = (WebStartRun.Median(oursRuns), WebStartRun.Median(templateRuns));
            var qemu = Qemu.Emulates(rid) ? " (qemu)" : "";
            rows.Add([rid, Table.Mb(ours.Size), Table.Mb(template.Size), Ratio(ours.Size, template.Size),
                Table.Ms(o.ReadyMs) + qemu, Table.Ms(t.ReadyMs) + qemu, Ratio(o.ReadyMs, t.ReadyMs),
                Table.Ms(o.FirstResponseMs) + qemu, Table.Ms(t.FirstResponseMs) + qemu, Ratio(o.FirstResponseMs, t.FirstResponseMs)]);
        }
        output.WriteLine();
        output.WriteLine($"HttpEndpoint (default build) against Microsoft's webapiaot template, both NativeAOT from this SDK in this run; {RunsFor(Repo.HostRid, runs)} alternating runs each");
        output.WriteLine($"({RunsFor(AppBuilds.Arm64Rid, runs)} under qemu), medians; ready = spawn to the ready line (the template's: \"{WebTemplate.ReadyText}\"); first response = spawn");
        output.WriteLine($"to the first 200 of a GET polled from the ready line on (HttpEndpoint /health/live, template {WebTemplate.Route}); ratio = HttpEndpoint / template");
        Table.Write(output, ["RID", "binary", "template binary", "ratio", "ready", "template ready", "ratio", "first response", "template first response", "ratio"], rows);
        return true;
    }

    // Ratios near 1 need more than the table's few runs: 8 times as many natively, where a run is 30 ms.
    private static int RunsFor(string rid, int runs) => Qemu.Emulates(rid) ? StartupRuns.RunsFor(rid, runs) : runs * 8;

    private static string Ratio(double ours, double template) => (ours / template).ToString("0.00'x'", CultureInfo.InvariantCulture);
}
