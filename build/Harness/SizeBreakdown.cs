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
            [label, .. builds.Select(b => (bytes(b) / 1024.0).ToString("#,0", CultureInfo.InvariantCulture))];
    }
}
