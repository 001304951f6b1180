namespace Prewire.Testing;

/// <summary>
/// One run of an app under a tool that watches it and writes what it saw to a file (cachegrind, GNU
/// time): spawn, the ready line, SIGTERM where the app runs until stopped, a clean exit.
/// </summary>
internal static class WatchedRun
{
    /// <summary>
    /// Runs <paramref name="executable"/> with <paramref name="args"/> under <paramref name="launcher"/>
    /// (given the file it writes to) and returns that file's text. <paramref name="stopAtReady"/>: an
    /// app that runs until stopped gets SIGTERM at its ready line; otherwise it exits by itself.
    /// <paramref name="slowdown"/> widens the hang guards for tools that slow the run;
    /// <paramref name="launcherForks"/>: the app is the launcher's child (GNU time), not the launcher
    /// itself (valgrind runs it in its own process).
    /// </summary>
    public static async Task<string> RunAsync(string executable, string rid, IReadOnlyList<string> args, bool stopAtReady,
        Func<string, IReadOnlyList<string>> launcher, int slowdown, bool launcherForks, IReadOnlyDictionary<string, string>? environment = null)
    {
        var file = Path.Combine(Path.GetTempPath(), $"prewire-watched-{Guid.NewGuid():N}.out");
        try
        {
            await using (var process = AppProcess.Start(executable, args, environment, rid, launcher: launcher(file)))
            {
                if (stopAtReady)
                {
                    await process.WaitForReadyAsync(AppRuns.ReadyTimeout(rid) * slowdown).ConfigureAwait(false);
                    process.Terminate(toChildren: launcherForks);
                }
                var exitCode = await process.WaitForExitAsync((AppRuns.ReadyTimeout(rid) + AppRuns.ExitTimeout(rid)) * slowdown).ConfigureAwait(false);
                if (exitCode != 0)
                    throw new InvalidOperationException($"{Path.GetFileName(executable)} {string.Join(' ', args)} exited with {exitCode} under {launcher(file)[0]}.\nstdout:\n{process.Stdout}\nstderr:\n{process.Stderr}");
            }
            return await File.ReadAllTextAsync(file).ConfigureAwait(false);
        }
        finally
        {
            File.Delete(file);
        }
    }
}
