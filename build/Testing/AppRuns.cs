namespace Prewire.Testing;

/// <summary>The standard way to run each app to its ready line, shared by the demo and the tests.</summary>
public static class AppRuns
{
    // Hang guards, not measurements. Under qemu on a loaded 2-core machine a binary can take many
    // times as long (seen: HttpEndpoint --help past 10 s while a build ran beside the suite).
    private const int EmulationFactor = 6;

    /// <summary>How long a start may take before it counts as hung.</summary>
    public static TimeSpan ReadyTimeout(string rid) => Scaled(rid, TimeSpan.FromSeconds(30));

    /// <summary>How long an exit may take before it counts as hung.</summary>
    public static TimeSpan ExitTimeout(string rid) => Scaled(rid, TimeSpan.FromSeconds(10));

    /// <summary>The apps' <c>--connect-timeout</c> (10 s by default) as a hang guard: scaled under emulation.</summary>
    public static TimeSpan ConnectTimeout(string rid) => Scaled(rid, TimeSpan.FromSeconds(10));

    private static TimeSpan Scaled(string rid, TimeSpan native) => Qemu.Emulates(rid) ? native * EmulationFactor : native;

    /// <summary>
    /// Starts an app the way it runs in production: brokers apps with a URI, the web app on a free
    /// loopback port; <paramref name="timed"/>: as the start-up gate times it (<see cref="Prewire.Build.StartupInstruments.Timed"/>).
    /// </summary>
    public static AppProcess Start(App app, string executable, string rid, string? brokerUri, out Uri? baseAddress, bool timed = false) =>
        AppProcess.Start(executable, Arguments(app, brokerUri, out baseAddress), rid: rid, timed: timed);

    /// <summary>The command line <see cref="Start"/> gives an app, for runs that start it another way (in a container).</summary>
    public static IReadOnlyList<string> Arguments(App app, string? brokerUri, out Uri? baseAddress)
    {
        ArgumentNullException.ThrowIfNull(app);
        baseAddress = null;
        if (app.IsWeb)
        {
            baseAddress = new Uri($"http://127.0.0.1:{FreePort.Next()}/");
            return ["--urls", baseAddress.ToString().TrimEnd('/')];
        }
        return brokerUri is null ? [] : ["--uri", brokerUri];
    }

    /// <summary>Runs an app once: spawn, ready line, clean exit (SIGTERM for an app that runs until stopped). Returns spawn-to-ready ms.</summary>
    public static async Task<double> RunOnceAsync(App app, string executable, string rid, string? brokerUri, bool timed = false) =>
        (await TimeToReadyAsync(app, executable, rid, brokerUri, timed).ConfigureAwait(false)).Ms;

    /// <summary>As <see cref="RunOnceAsync"/>; returns spawn to ready and, of that, the time off the CPU.</summary>
    public static async Task<Prewire.Build.StartupTime> TimeToReadyAsync(App app, string executable, string rid, string? brokerUri, bool timed = false)
    {
        ArgumentNullException.ThrowIfNull(app);
        await using var process = Start(app, executable, rid, brokerUri, out _, timed);
        var readyMs = await process.WaitForReadyAsync(ReadyTimeout(rid)).ConfigureAwait(false);
        if (app.RunsUntilStopped(brokerUri is not null)) process.Terminate();
        var exitCode = await process.WaitForExitAsync(ExitTimeout(rid)).ConfigureAwait(false);
        if (exitCode != 0)
            throw new InvalidOperationException($"{app} exited with {exitCode}.\nstderr:\n{process.Stderr}");
        return Prewire.Build.StartupTime.Of(readyMs, process.CpuMsAtReady);
    }

    /// <summary>Runs an app with <paramref name="args"/> to its own exit (a one-shot run: <c>--help</c>, nothing to do). Returns spawn to exit and, of that, the time off the CPU.</summary>
    public static async Task<Prewire.Build.StartupTime> RunToExitAsync(App app, string executable, string rid, IReadOnlyList<string> args, bool timed = false)
    {
        ArgumentNullException.ThrowIfNull(app);
        await using var process = AppProcess.Start(executable, args, rid: rid, timed: timed);
        var exitCode = await process.WaitForExitAsync(ReadyTimeout(rid)).ConfigureAwait(false);
        if (exitCode != 0)
            throw new InvalidOperationException($"{app} {string.Join(' ', args)} exited with {exitCode}.\nstderr:\n{process.Stderr}");
        return Prewire.Build.StartupTime.Of(process.ExitedMs!.Value, process.CpuMsAtExit);
    }
}
