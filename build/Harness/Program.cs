using Prewire.Harness;

// Verbs for build.sh. Kept to plain argument handling: this is a build tool, not a shipped app.
const string Usage = "usage: Prewire.Harness demo [runs] | baseline [pairs|counts] | gate-sensitivity [rounds] [rid] | gate-repeat [rounds] | publish [rid...] | size [rid] | report [runs] | messaging [runs] | telemetry [runs] [count] [rid] | rolling-restart [seconds] | soak [messages] | startup-order | long-run [rounds] [rid]";
try
{
    return args switch
    {
        ["demo", ..] => await Demo.RunAsync(Number(1, 5), Console.Out),
        ["baseline", "counts"] => await RecordBaseline.RunAsync(0, countsOnly: true, Console.Out),
        ["baseline", ..] => await RecordBaseline.RunAsync(Number(1, StartupRuns.GatePairs), countsOnly: false, Console.Out),
        ["gate-repeat", ..] => await GateRepeat.RunAsync(Number(1, 10), BrokerNode.RequiredUri("gate-repeat"), Console.Out),
        ["gate-sensitivity", ..] => await GateSensitivity.RunAsync(Number(1, 5), args.Length > 2 ? args[2] : null, Console.Out),
        ["report", ..] => OperatingSystem.IsLinux() ? await Report.RunAsync(Number(1, 5), Console.Out) : 2,
        ["messaging", ..] => await MessagingBenchmark.RunAsync(Number(1, 3), Console.Out),
        ["telemetry", ..] => await TelemetryCost.RunAsync(Number(1, 3), Number(2, 20_000), args.Length > 3 ? args[3] : Repo.HostRid, Console.Out),
        ["size", .. var sizeRid] => await SizeBreakdown.RunAsync(sizeRid.Length == 0 ? Repo.HostRid : sizeRid[0], Console.Out),
        ["publish", .. var rids] => await PublishAll.RunAsync(rids.Length == 0 ? [Repo.HostRid] : rids, Console.Out),
        ["rolling-restart", ..] => await RollingRestartRun.RunAsync(TimeSpan.FromSeconds(Number(1, 60)), Console.Out),
        ["startup-order"] => await StartupOrder.RunAsync(BrokerNode.RequiredUri("startup-order"), Console.Out),
        ["soak", ..] => await Soak.RunAsync(Number(1, 1_000_000), BrokerNode.RequiredUri("soak"), Console.Out),
        ["long-run", ..] => await LongRunRepeat.RunAsync(Number(1, 10), args.Length > 2 ? args[2] : Repo.HostRid, BrokerNode.RequiredUri("long-run"), Console.Out),
        _ => Fail(Usage),
    };
}
catch (UsageException e)
{
    return Fail(e.Message);
}

// The one way a verb reads a count: absent, the default; given, a whole number above 0 or a usage error.
int Number(int index, int fallback) =>
    args.Length <= index ? fallback
    : int.TryParse(args[index], System.Globalization.NumberStyles.None, System.Globalization.CultureInfo.InvariantCulture, out var value) && value > 0 ? value
    : throw new UsageException($"{args[0]}: '{args[index]}' is not a whole number above 0");

static int Fail(string line)
{
    Console.Error.WriteLine(line);
    return 2;
}

// A bad argument on the command line, as opposed to a failure inside a verb.
internal sealed class UsageException(string message) : Exception(message);
