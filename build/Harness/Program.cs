using Prewire.Harness;

// Verbs for build.sh. Kept to plain argument handling: this is a build tool, not a shipped app.
switch (args)
{
    case ["demo", ..]:
        var runs = args.Length > 1 && int.TryParse(args[1], out var n) && n > 0 ? n : 5;
        return await Demo.RunAsync(runs, Console.Out);

    case ["baseline", ..]:
        var baselinePairs = args.Length > 1 && int.TryParse(args[1], out var b) && b > 0 ? b : StartupRuns.GatePairs;
        return await RecordBaseline.RunAsync(baselinePairs, Console.Out);

    case ["gate-repeat", ..]:
        var repeat = args.Length > 1 && int.TryParse(args[1], out var gr) && gr > 0 ? gr : 10;
        return await GateRepeat.RunAsync(repeat, BrokerNode.RequiredUri("gate-repeat"), Console.Out);

    case ["gate-sensitivity", ..]:
        var rounds = args.Length > 1 && int.TryParse(args[1], out var g) && g > 0 ? g : 5;
        return await GateSensitivity.RunAsync(rounds, args.Length > 2 ? args[2] : null, Console.Out);

    case ["report", ..]:
        var reportRuns = args.Length > 1 && int.TryParse(args[1], out var r) && r > 0 ? r : 5;
        return OperatingSystem.IsLinux() ? await Report.RunAsync(reportRuns, Console.Out) : 2;

    case ["messaging", ..]:
        var messagingRuns = args.Length > 1 && int.TryParse(args[1], out var m) && m > 0 ? m : 3;
        return await MessagingBenchmark.RunAsync(messagingRuns, Console.Out);

    case ["telemetry", ..]:
        var telemetryRuns = args.Length > 1 && int.TryParse(args[1], out var t) && t > 0 ? t : 3;
        var telemetryCount = args.Length > 2 && int.TryParse(args[2], out var tc) && tc > 0 ? tc : 20_000;
        return await TelemetryCost.RunAsync(telemetryRuns, telemetryCount, args.Length > 3 ? args[3] : Repo.HostRid, Console.Out);

    case ["size", .. var sizeRid]:
        return await SizeBreakdown.RunAsync(sizeRid.Length == 0 ? Repo.HostRid : sizeRid[0], Console.Out);

    case ["publish", .. var rids]:
        return await PublishAll.RunAsync(rids.Length == 0 ? [Repo.HostRid] : rids, Console.Out);

    case ["rolling-restart", ..]:
        var seconds = args.Length > 1 && int.TryParse(args[1], out var s) && s > 0 ? s : 60;
        return await RollingRestartRun.RunAsync(TimeSpan.FromSeconds(seconds), Console.Out);

    case ["soak", ..]:
        var soakCount = args.Length > 1 && int.TryParse(args[1], out var c) && c > 0 ? c : 1_000_000;
        return await Soak.RunAsync(soakCount, BrokerNode.RequiredUri("soak"), Console.Out);

    default:
        Console.Error.WriteLine("usage: Prewire.Harness demo [runs] | baseline [pairs] | gate-sensitivity [rounds] [rid] | gate-repeat [rounds] | publish [rid...] | size [rid] | report [runs] | messaging [runs] | rolling-restart [seconds] | soak [messages]");
        return 2;
}
