using System.Globalization;

namespace Prewire.Harness;

/// <summary>
/// <c>./build.sh size</c>: what each app's NativeAOT binary is made of, per assembly (<see cref="Mstat"/>),
/// as a plain publish builds it (Prewire's client, TLS, the OTLP exporter), with RabbitMQ.Client beside
/// it (<c>-p:PrewireAmqpClient=Both</c>), without telemetry's exporter (<c>-p:PrewireTelemetry=false</c>,
/// the smallest with TLS), and without TLS as well (<c>-p:PrewireTls=false</c>), side by side, and Microsoft's <c>webapiaot</c>
/// template (<see cref="WebTemplate"/>) beside them, the HttpEndpoint's yardstick.
/// </summary>
public static class SizeBreakdown
{
    private const int Listed = 10;

    private static readonly (PublishMode Mode, AmqpClients Clients, string Label)[] _builds =
    [
        (PublishMode.Aot, AmqpClients.Prewire, ""),
        (PublishMode.Aot, AmqpClients.Both, " both clients"),
        (PublishMode.AotNoTelemetry, AmqpClients.Prewire, " no OTLP"),
        (PublishMode.AotNoTelemetryNoTls, AmqpClients.Prewire, " no OTLP, no TLS"),
    ];

    public static async Task<int> RunAsync(string rid, TextWriter output)
    {
        ArgumentNullException.ThrowIfNull(output);
        var builds = new List<(PublishResult Build, Mstat Stats)>();
        foreach (var app in App.All)
        {
            foreach (var (mode, clients, _) in _builds)
            {
                var build = await AppBuilds.PublishStepAsync("size:", app, rid, mode, clients, output).ConfigureAwait(false);
                if (!build.Succeeded) return 1;
                builds.Add((build, Mstat.Read(build.MstatPath)));
            }
        }
        output.WriteLine($"size: publishing the webapiaot template ({rid})...");
        var template = await WebTemplate.PublishAsync(rid, output).ConfigureAwait(false);
        if (!template.Succeeded)
        {
            output.WriteLine($"size: the webapiaot template FAILED:\n{template.Errors}");
            return 1;
        }
        builds.Add((template, Mstat.Read(template.MstatPath)));
        Write(output, rid, builds);
        return 0;
    }

    public static void Write(TextWriter output, string rid, IReadOnlyList<(PublishResult Build, Mstat Stats)> builds)
    {
        ArgumentNullException.ThrowIfNull(output);
        ArgumentNullException.ThrowIfNull(builds);
        static bool Ours(string assembly) => assembly.StartsWith("Prewire.", StringComparison.Ordinal);
        var top = builds.SelectMany(b => b.Stats.ByAssembly).Where(e => !Ours(e.Key)).GroupBy(e => e.Key)
            .OrderByDescending(g => g.Sum(e => e.Value)).Select(g => g.Key).Take(Listed).ToList();
        var rows = new List<string[]>();
        rows.AddRange(top.Select(assembly => Row(assembly, b => b.Stats.ByAssembly.GetValueOrDefault(assembly))));
        rows.Add(Row("other assemblies", b => b.Stats.ByAssembly.Where(e => !top.Contains(e.Key) && !Ours(e.Key)).Sum(e => e.Value)));
        rows.Add(Row("ours: Prewire.*", b => b.Stats.ByAssembly.Where(e => Ours(e.Key)).Sum(e => e.Value)));
        rows.Add(Row("data: reflection metadata, hashtables, frozen objects", b => b.Stats.Blobs));
        rows.Add(Row("native: runtime, GC, ELF", b => b.Build.Size - b.Stats.Managed - b.Stats.Blobs));
        rows.Add(Row("binary", b => b.Build.Size));
        output.WriteLine();
        output.WriteLine($"NativeAOT binaries, {rid}: code and type structures per assembly (generic instantiations count for the generic's assembly), KB;");
        output.WriteLine("the app's name alone: a plain publish (Prewire's client, TLS, OTLP exporter); \"both clients\": built with -p:PrewireAmqpClient=Both");
        output.WriteLine("(RabbitMQ.Client beside it); \"no OTLP\": with -p:PrewireTelemetry=false; \"no OTLP, no TLS\": and -p:PrewireTls=false");
        output.WriteLine();
        Table.Write(output, ["", .. builds.Select(b => b.Build.App == WebTemplate.App ? "webapiaot template"
            : b.Build.App.Name + _builds.Single(k => k.Mode == b.Build.Mode && k.Clients == b.Build.Clients).Label)], rows);

        string[] Row(string label, Func<(PublishResult Build, Mstat Stats), long> bytes) =>
            [label, .. builds.Select(b => Kilobytes(bytes(b)))];
        WriteExporterCost(output, builds);
    }

    // The issue behind the size goal asks which part of the exporter costs what: the default build less
    // the one without it, by the code that asked for the bytes (Mstat.ByCause), so CoreLib's growth
    // (async boxes, dictionaries) is laid at HTTP/2, OpenTelemetry or the exporter rather than at CoreLib.
    private static void WriteExporterCost(TextWriter output, IReadOnlyList<(PublishResult Build, Mstat Stats)> builds)
    {
        var pairs = App.All.Select(app => (App: app,
                With: builds.SingleOrDefault(b => b.Build.App == app && b.Build.Mode == PublishMode.Aot && b.Build.Clients == AmqpClients.Prewire),
                Without: builds.SingleOrDefault(b => b.Build.App == app && b.Build.Mode == PublishMode.AotNoTelemetry)))
            .Where(p => p.With.Build is not null && p.Without.Build is not null).ToList();
        if (pairs.Count == 0) return;
        long Added((PublishResult Build, Mstat Stats) with, (PublishResult Build, Mstat Stats) without, string cause) =>
            with.Stats.ByCause.GetValueOrDefault(cause) - without.Stats.ByCause.GetValueOrDefault(cause);
        var causes = pairs.SelectMany(p => p.With.Stats.ByCause.Keys.Union(p.Without.Stats.ByCause.Keys)).Distinct().ToList();
        var top = causes.OrderByDescending(c => pairs.Sum(p => Added(p.With, p.Without, c))).Take(Listed).ToList();
        var rows = new List<string[]>();
        rows.AddRange(top.Select(c => Row(c, p => Added(p.With, p.Without, c))));
        rows.Add(Row("other code", p => causes.Except(top).Sum(c => Added(p.With, p.Without, c))));
        rows.Add(Row("data", p => p.With.Stats.Blobs - p.Without.Stats.Blobs));
        rows.Add(Row("native and ELF", p => p.With.Build.Size - p.With.Stats.Managed - p.With.Stats.Blobs - (p.Without.Build.Size - p.Without.Stats.Managed - p.Without.Stats.Blobs)));
        rows.Add(Row("binary", p => p.With.Build.Size - p.Without.Build.Size));
        output.WriteLine();
        output.WriteLine("What the OTLP exporter adds (the default build less -p:PrewireTelemetry=false), KB, by the code that asked for it:");
        output.WriteLine("a generic instantiation counts for its last type argument from outside CoreLib (an async box for the method it runs)");
        output.WriteLine();
        Table.Write(output, ["", .. pairs.Select(p => p.App.Name)], rows);

        string[] Row(string label, Func<((PublishResult Build, Mstat Stats) With, (PublishResult Build, Mstat Stats) Without), long> bytes) =>
            [label, .. pairs.Select(p => Kilobytes(bytes((p.With, p.Without))))];
    }

    // Rounded as a whole number first: a few bytes less would otherwise print as "-0".
    private static string Kilobytes(long bytes) => ((long)Math.Round(bytes / 1024.0)).ToString("#,0", CultureInfo.InvariantCulture);
}
