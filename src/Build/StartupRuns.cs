using System.Diagnostics;
using System.Globalization;

namespace Prewire.Build;

/// <summary>
/// One start, timed or counted. Time is spawn to the ready line (or exit); instructions are counted by
/// valgrind's cachegrind without its cache simulation, user space only: the same count for the same
/// binary however busy the machine is, where a wall clock moves by milliseconds.
/// </summary>
internal static class StartupRuns
{
    /// <summary>Milliseconds from spawn to the ready line (or exit), and of those the ones off the CPU.</summary>
    public static async Task<StartupTime> TimeAsync(StartupCommand command)
    {
        var clock = Stopwatch.StartNew();
        var cpuMs = await RunAsync(command.StartInfo(StartupInstruments.Timed(command.Emulated)), command, clock, TimeSpan.FromSeconds(command.Emulated ? 120 : 30)).ConfigureAwait(false);
        return StartupTime.Of(clock.Elapsed.TotalMilliseconds, cpuMs);
    }

    /// <summary>User-space instructions from spawn to the ready line (and the exit SIGTERM causes) or to exit.</summary>
    public static async Task<long> CountAsync(StartupCommand command)
    {
        // A copy alone in a folder: valgrind 3.19 gives up on the stripped symbols (.dbg) ILC leaves beside the binary.
        var folder = Directory.CreateTempSubdirectory("prewire-cachegrind-").FullName;
        var file = Path.Combine(folder, "cachegrind.out");
        var copy = Path.Combine(folder, Path.GetFileName(command.Binary));
        File.Copy(command.Binary, copy);
        command = command with { Binary = copy };
        try
        {
            var start = command.StartInfo(StartupInstruments.Cachegrind(file));
            foreach (var (name, value) in StartupInstruments.CachegrindEnvironment) start.Environment[name] = value;
            // Under cachegrind a start runs 50-100 times slower.
            await RunAsync(start, command, Stopwatch.StartNew(), TimeSpan.FromMinutes(5)).ConfigureAwait(false);
            return StartupInstruments.ReadCount(File.Exists(file) ? await File.ReadAllTextAsync(file).ConfigureAwait(false) : "");
        }
        catch (InvalidDataException e)
        {
            throw new GateException($"counting {command.Binary}: {e.Message}");
        }
        finally
        {
            Directory.Delete(folder, recursive: true);
        }
    }

    // The app's own first line, not valgrind's ("==pid== ...") or qemu's ("qemu: uncaught target signal").
    private static string FirstOwnLine(string text) =>
        text.Split('\n', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries)
            .FirstOrDefault(l => !l.StartsWith("==", StringComparison.Ordinal) && !l.StartsWith("qemu:", StringComparison.Ordinal)) is { } line ? $": {line}" : "";

    // Starts it, stops the clock at the ready line (then SIGTERM) or at exit, and waits for a clean exit.
    // Returns the CPU it had used when the clock stopped.
    private static async Task<double?> RunAsync(ProcessStartInfo start, StartupCommand command, Stopwatch clock, TimeSpan timeout)
    {
        using var cancel = new CancellationTokenSource(timeout);
        double? cpuMs = null;
        var endedBefore = ProcessCpu.EndedChildrenMs();
        using var process = Process.Start(start) ?? throw new GateException($"{start.FileName} did not start");
        var errors = process.StandardError.ReadToEndAsync(cancel.Token);
        try
        {
            if (command.Ready is { } ready)
            {
                while (await process.StandardOutput.ReadLineAsync(cancel.Token).ConfigureAwait(false) is { } line)
                {
                    if (!ready.IsMatch(line)) continue;
                    clock.Stop();
                    cpuMs = ProcessCpu.RunningMs(process.Id);
                    using var kill = Process.Start(new ProcessStartInfo("kill", ["-TERM", process.Id.ToString(CultureInfo.InvariantCulture)]) { UseShellExecute = false })!;
                    await kill.WaitForExitAsync(cancel.Token).ConfigureAwait(false);
                    break;
                }
            }
            var stopped = command.Ready is not null && !clock.IsRunning;
            var output = process.StandardOutput.ReadToEndAsync(cancel.Token);
            await process.WaitForExitAsync(cancel.Token).ConfigureAwait(false);
            clock.Stop();
            await output.ConfigureAwait(false);
            // Stopped at its ready line, an app may exit 143 (SIGTERM's default) rather than 0.
            if (process.ExitCode != 0 && !(stopped && process.ExitCode == 143))
                throw new GateException($"{string.Join(' ', [Path.GetFileName(command.Binary), .. command.Args])} exited with {process.ExitCode}{FirstOwnLine(await errors.ConfigureAwait(false))}");
            if (command.Ready is { } pattern && !stopped)
                throw new GateException($"{Path.GetFileName(command.Binary)} exited without a line matching '{pattern}'");
            return stopped ? cpuMs : ProcessCpu.EndedChildrenMs() - endedBefore;
        }
        catch (OperationCanceledException)
        {
            process.Kill(entireProcessTree: true);
            throw new GateException($"{Path.GetFileName(command.Binary)} did not {(command.Ready is null ? "exit" : "print its ready line and exit")} within {timeout.TotalSeconds:0} s");
        }
    }
}
