using System.Diagnostics;
using System.Text;
using Prewire.Build;
using Prewire.Samples;

namespace Prewire.Testing;

/// <summary>
/// A running app binary: its output, the time from spawn to its ready line (measured here, outside
/// the process), its exit. Disposing kills whatever is still running.
/// </summary>
public sealed class AppProcess : IAsyncDisposable
{
    private readonly Process _process;
    private readonly Stopwatch _sinceSpawn;
    private readonly List<(double Ms, string Line)> _stdout = [];
    private readonly StringBuilder _stderr = new();
    private readonly TaskCompletionSource<double> _ready = new(TaskCreationOptions.RunContinuationsAsynchronously);

    private AppProcess(Process process, Stopwatch sinceSpawn)
    {
        _process = process;
        _sinceSpawn = sinceSpawn;
    }

    /// <summary>
    /// Starts <paramref name="executable"/>; under qemu-aarch64 when it is an arm64 binary on another
    /// host, with the C runtime from <paramref name="sysRoot"/> (default: <see cref="Qemu.SysRoot"/>);
    /// <paramref name="timed"/>: as <see cref="StartupInstruments.Timed"/> launches it, for the start-up gate's runs;
    /// <paramref name="launcher"/>: a command that runs it and watches (cachegrind, GNU time), its arguments first.
    /// </summary>
    public static AppProcess Start(string executable, IEnumerable<string> args, IReadOnlyDictionary<string, string>? environment = null, string? rid = null, string? sysRoot = null, bool timed = false, IReadOnlyList<string>? launcher = null)
    {
        (string FileName, IReadOnlyList<string> Args) command = Qemu.Emulates(rid)
            ? (Qemu.Path, ["-L", sysRoot ?? Qemu.SysRoot, executable, .. args])
            : (executable, [.. args]);
        if (launcher is { Count: > 0 }) command = (launcher[0], [.. launcher.Skip(1), command.FileName, .. command.Args]);
        if (timed && StartupInstruments.Timed(Qemu.Emulates(rid)) is { Count: > 0 } raised) command = (raised[0], [.. raised.Skip(1), command.FileName, .. command.Args]);
        var start = new ProcessStartInfo(command.FileName, command.Args)
        {
            WorkingDirectory = Path.GetDirectoryName(executable)!,
        };
        // The apps read these; the harness decides them explicitly per run.
        start.Environment.Remove("RABBITMQ_URI");
        start.Environment.Remove("PREWIRE_URLS");
        // Telemetry is on only where a test turns it on (OtlpReceiver), never because the host exports.
        start.Environment.Remove("OTEL_EXPORTER_OTLP_ENDPOINT");
        start.Environment.Remove("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT");
        start.Environment.Remove("PREWIRE_CONNECT_TIMEOUT");
        // Emulated, an amqps handshake once took more than the default 10 s on a busy 2-core host.
        if (rid is not null && Qemu.Emulates(rid)) start.Environment["PREWIRE_CONNECT_TIMEOUT"] = AppRuns.ConnectTimeout(rid).TotalSeconds.ToString(System.Globalization.CultureInfo.InvariantCulture);
        foreach (var (key, value) in environment ?? new Dictionary<string, string>()) start.Environment[key] = value;
        return Launch(start);
    }

    /// <summary>Starts an app through another program that runs it and relays its output (a container runtime).</summary>
    public static AppProcess StartThrough(string fileName, IEnumerable<string> args, string workingDirectory) =>
        Launch(new ProcessStartInfo(fileName, args) { WorkingDirectory = workingDirectory });

    private static AppProcess Launch(ProcessStartInfo start)
    {
        start.RedirectStandardOutput = true;
        start.RedirectStandardError = true;
        start.RedirectStandardInput = true;
        start.UseShellExecute = false;
        var process = new Process { StartInfo = start };
        var endedChildrenMs = ProcessCpu.EndedChildrenMs();
        var sinceSpawn = Stopwatch.StartNew();
        var app = new AppProcess(process, sinceSpawn);
        process.EnableRaisingEvents = true;
        process.Exited += (_, _) =>
        {
            app.ExitedMs = sinceSpawn.Elapsed.TotalMilliseconds;
            // Raised once the runtime has waited for the child, so its CPU is among the ended children's.
            app.CpuMsAtExit = ProcessCpu.EndedChildrenMs() - endedChildrenMs;
        };
        process.OutputDataReceived += (_, e) => app.OnStdout(e.Data);
        process.ErrorDataReceived += (_, e) => { if (e.Data is not null) lock (app._stderr) app._stderr.AppendLine(e.Data); };
        process.Start();
        process.BeginOutputReadLine();
        process.BeginErrorReadLine();
        return app;
    }

    public int Id => _process.Id;

    /// <summary>Whether the process has ended.</summary>
    public bool HasExited => _process.HasExited;

    public string Stdout { get { lock (_stdout) return string.Concat(_stdout.Select(l => l.Line + "\n")); } }

    public string Stderr { get { lock (_stderr) return _stderr.ToString(); } }

    /// <summary>Milliseconds since spawn, now.</summary>
    public double SinceSpawnMs => _sinceSpawn.Elapsed.TotalMilliseconds;

    /// <summary>Milliseconds from spawn to the first line on stdout, once there was one.</summary>
    public double? FirstLineMs { get { lock (_stdout) return _stdout.Count > 0 ? _stdout[0].Ms : null; } }

    /// <summary>Milliseconds from spawn to the process's exit, once it has exited (as the runtime saw the child end).</summary>
    public double? ExitedMs { get; private set; }

    /// <summary>
    /// CPU the process had used, every thread, when its exit was seen; null before. Read as what every
    /// child this process waited for used since the spawn: a harness that ends others meanwhile adds theirs.
    /// </summary>
    public double? CpuMsAtExit { get; private set; }

    /// <summary>CPU the process had used, every thread, when its ready line was read; null before.</summary>
    public double? CpuMsAtReady { get; private set; }

    /// <summary>The ready line's own figure (time since the app's Main began), once it was printed.</summary>
    public double? ReportedReadyMs { get; private set; }

    /// <summary>Milliseconds from spawn to the ready line; throws with the app's output when it does not come.</summary>
    public async Task<double> WaitForReadyAsync(TimeSpan timeout)
    {
        var exited = _process.WaitForExitAsync();
        var first = await Task.WhenAny(_ready.Task, exited, Task.Delay(timeout)).ConfigureAwait(false);
        if (first == _ready.Task) return await _ready.Task.ConfigureAwait(false);
        if (first == exited)
        {
            // The ready line may have been the last thing it printed.
            await exited.ConfigureAwait(false);
            if (_ready.Task.IsCompleted) return await _ready.Task.ConfigureAwait(false);
            throw new InvalidOperationException($"exited with {_process.ExitCode} before its ready line.\nstdout:\n{Stdout}\nstderr:\n{Stderr}");
        }
        throw new TimeoutException($"no ready line within {timeout.TotalSeconds} s.\nstdout:\n{Stdout}\nstderr:\n{Stderr}");
    }

    /// <summary>
    /// Milliseconds from spawn to the first stdout line containing <paramref name="text"/> (another program's
    /// ready line); throws with the output when it does not come. The time is the line's arrival, not this wait's.
    /// </summary>
    public async Task<double> WaitForLineAsync(string text, TimeSpan timeout)
    {
        var until = _sinceSpawn.Elapsed + timeout;
        while (true)
        {
            lock (_stdout)
            {
                foreach (var (ms, line) in _stdout)
                {
                    if (line.Contains(text, StringComparison.Ordinal)) return ms;
                }
            }
            if (_process.HasExited) throw new InvalidOperationException($"exited with {_process.ExitCode} before printing '{text}'.\nstdout:\n{Stdout}\nstderr:\n{Stderr}");
            if (_sinceSpawn.Elapsed > until) throw new TimeoutException($"no '{text}' within {timeout.TotalSeconds} s.\nstdout:\n{Stdout}\nstderr:\n{Stderr}");
            await Task.Delay(1).ConfigureAwait(false);
        }
    }

    /// <summary>Waits for exit; kills the process and throws on timeout.</summary>
    public async Task<int> WaitForExitAsync(TimeSpan timeout)
    {
        using var cts = new CancellationTokenSource(timeout);
        try
        {
            await _process.WaitForExitAsync(cts.Token).ConfigureAwait(false);
        }
        catch (OperationCanceledException)
        {
            _process.Kill(entireProcessTree: true);
            throw new TimeoutException($"did not exit within {timeout.TotalSeconds} s.\nstdout:\n{Stdout}\nstderr:\n{Stderr}");
        }
        // The wait can return before the Exited event ran (the exit already seen): a later time then.
        ExitedMs ??= _sinceSpawn.Elapsed.TotalMilliseconds;
        return _process.ExitCode;
    }

    /// <summary>
    /// Sends SIGTERM, as a container runtime does on stop; <paramref name="toChildren"/>: to the
    /// processes this one started instead (a launcher such as GNU time, which waits for the app and
    /// would itself die of the signal before it reports).
    /// </summary>
    public void Terminate(bool toChildren = false)
    {
        var pid = _process.Id.ToString(System.Globalization.CultureInfo.InvariantCulture);
        string[] targets = toChildren ? File.ReadAllText($"/proc/{pid}/task/{pid}/children").Split(' ', StringSplitOptions.RemoveEmptyEntries) : [pid];
        if (targets.Length == 0) throw new InvalidOperationException($"{_process.StartInfo.FileName} ({pid}) has no child to stop");
        Signal("-TERM", targets);
    }

    /// <summary>
    /// Runs <paramref name="action"/> with the process stopped (SIGSTOP), every thread where it was and what
    /// arrives meanwhile waiting in its sockets; it runs on (SIGCONT) once the action ends, however it ends.
    /// </summary>
    public async Task PausedDuringAsync(Func<Task> action)
    {
        string[] pid = [_process.Id.ToString(System.Globalization.CultureInfo.InvariantCulture)];
        Signal("-STOP", pid);
        try
        {
            await action().ConfigureAwait(false);
        }
        finally
        {
            Signal("-CONT", pid);
        }
    }

    private static void Signal(string signal, string[] pids)
    {
        using var kill = Process.Start(new ProcessStartInfo("kill", [signal, .. pids]) { UseShellExecute = false })!;
        kill.WaitForExit();
        if (kill.ExitCode != 0) throw new InvalidOperationException($"kill {signal} {string.Join(' ', pids)} failed ({kill.ExitCode})");
    }

    public async ValueTask DisposeAsync()
    {
        if (!_process.HasExited)
        {
            _process.Kill(entireProcessTree: true);
            await _process.WaitForExitAsync().ConfigureAwait(false);
        }
        _process.Dispose();
    }

    private void OnStdout(string? line)
    {
        if (line is null) return;
        var elapsed = _sinceSpawn.Elapsed.TotalMilliseconds;
        lock (_stdout) _stdout.Add((elapsed, line));
        if (!_ready.Task.IsCompleted && ReadyLine.TryParse(line, out var reported))
        {
            ReportedReadyMs = reported;
            CpuMsAtReady = ProcessCpu.RunningMs(_process.Id);
            _ready.TrySetResult(elapsed);
        }
    }
}
