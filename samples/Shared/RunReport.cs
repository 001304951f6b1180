using System.Buffers;
using System.Diagnostics;
using System.Globalization;
using System.Text;
using System.Text.Json;
using Serilog;

namespace Prewire.Samples;

/// <summary>
/// What a broker app's run did, measured while it runs and reported at its end: messages, rate, a
/// latency's median and 99th percentile, bytes allocated per message once warm (the whole process,
/// from the first tenth of the messages on), peak resident memory and start-up time. As a few
/// lines, or with <c>--json</c> one JSON object on stdout. While it runs, a progress line on a
/// terminal, elsewhere a log line every 5 seconds while messages come.
/// </summary>
/// <param name="requested">Messages the run is to do; <see langword="null"/> for a worker that runs until it is stopped.</param>
/// <param name="latencyName">The latency's name in the report (<c>confirm</c>, <c>endToEnd</c>).</param>
public sealed class RunReport(int? requested, string latencyName)
{
    // A worker has no tenth to warm up in: its allocations are counted from this many messages on.
    private const int WorkerWarmup = 1_000;

    private long _started = Stopwatch.GetTimestamp();
    private TimeSpan _startup = StartupClock.Elapsed;
    private long _warmAllocated = -1;
    private long _warmAt;
    private HeapReadings? _heap;

    /// <summary>Bytes the process allocated so far; a test's own counter in unit tests.</summary>
    internal Func<long> AllocatedBytes { get; init; } = static () => GC.GetTotalAllocatedBytes(precise: true);

    /// <summary>Time since <see cref="Ready"/>.</summary>
    public TimeSpan Elapsed => Stopwatch.GetElapsedTime(_started);

    /// <summary>Marks the app ready: its start-up time is taken, and the run's clock starts.</summary>
    public void Ready() => (_startup, _started) = (StartupClock.Elapsed, Stopwatch.GetTimestamp());

    /// <summary>The latency reported (a publish until its confirm, or a message from sent to handled).</summary>
    public LatencyHistogram Latency { get; } = new();

    /// <summary>Called with the number of messages done after each one: the first tenth warms up, then allocations are counted.</summary>
    public void Done(long done)
    {
        // The last message's heap is taken while the run's state is still what it was when warm: after the
        // run the report, the final log and the closing connection would be in it (~380 KB here, whatever the count).
        _heap?.Done(done);
        if (done != _warmAtMessage || Interlocked.CompareExchange(ref _warmAt, done, 0) != 0) return;
        Volatile.Write(ref _warmAllocated, AllocatedBytes());
    }

    /// <summary>
    /// Also reports, at each tenth of the run and at its last message (a worker: once warm and at its end),
    /// the bytes allocated so far and the managed heap after a full, compacting collection
    /// (<c>readingsAt</c>, <c>allocatedBytes</c>, <c>heapBytes</c>): what a long run compares. The
    /// collections pause the run; off by default.
    /// </summary>
    public bool HeapCheck
    {
        get => _heap is not null;
        init => _heap = value ? new HeapReadings(requested, _warmAtMessage, () => AllocatedBytes()) : null;
    }

    private readonly long _warmAtMessage = requested is { } count ? Math.Max(1, count / 10) : WorkerWarmup;

    /// <summary>
    /// Shows progress until <paramref name="stop"/> is cancelled: <paramref name="progress"/> says what
    /// is done, e.g. "1200 confirmed, 0 failed".
    /// </summary>
    public async Task ShowProgressAsync(Func<(long Done, string Text)> progress, ILogger log, CancellationToken stop)
    {
        ArgumentNullException.ThrowIfNull(progress);
        ArgumentNullException.ThrowIfNull(log);
        var terminal = !Console.IsErrorRedirected;
        var interval = TimeSpan.FromMilliseconds(terminal ? 250 : 5_000);
        using var timer = new PeriodicTimer(interval);
        var before = 0L;
        try
        {
            while (await timer.WaitForNextTickAsync(stop).ConfigureAwait(false))
            {
                var (done, text) = progress();
                // The rate over the last interval: a worker's average since it started says nothing after a day.
                var rate = (done - before) / interval.TotalSeconds;
                var of = requested is { } count ? string.Create(CultureInfo.InvariantCulture, $" of {count}") : "";
                if (terminal) await Console.Error.WriteAsync(string.Create(CultureInfo.InvariantCulture, $"\r{done}{of}: {text}, {rate:0} msg/s   ")).ConfigureAwait(false);
                // A line while messages come, not one every 5 s for weeks of an idle queue.
                else if (done != before) log.Information("{Done}{Of:l}: {Progress}, {Rate:0} msg/s", done, of, text, rate);
                before = done;
            }
        }
        catch (OperationCanceledException)
        {
            if (terminal) await Console.Error.WriteAsync('\r' + new string(' ', 72) + '\r').ConfigureAwait(false);
        }
    }

    /// <summary>Writes the report of <paramref name="done"/> messages with the app's own figures.</summary>
    public void Write(TextWriter output, bool json, long done, params (string Name, object Value)[] figures)
    {
        ArgumentNullException.ThrowIfNull(output);
        ArgumentNullException.ThrowIfNull(figures);
        var seconds = Elapsed.TotalSeconds;
        var warmAt = Volatile.Read(ref _warmAt);
        var warmAllocated = Volatile.Read(ref _warmAllocated);
        double? bytesPerMessage = warmAllocated < 0 || done <= warmAt ? null
            : (double)(AllocatedBytes() - warmAllocated) / (done - warmAt);
        (string Name, object? Value)[] all =
        [
            ("messages", done),
            ("requested", requested),
            ("seconds", Math.Round(seconds, 3)),
            ("msgsPerSecond", seconds > 0 ? Math.Round(done / seconds, 1) : null),
            ($"{latencyName}P50Ms", Ms(Latency.Percentile(0.50))),
            ($"{latencyName}P99Ms", Ms(Latency.Percentile(0.99))),
            ("bytesPerMessage", bytesPerMessage is { } b ? Math.Round(b, 1) : null),
            ("peakRssMb", PeakRssMb()),
            ("startupMs", Math.Round(_startup.TotalMilliseconds, 1)),
            .. _heap?.Fields(done) ?? [],
            .. figures.Select(f => (f.Name, (object?)f.Value)),
        ];
        if (json) WriteJson(output, all);
        else foreach (var (name, value) in all) output.WriteLine(string.Create(CultureInfo.InvariantCulture, $"  {name,-22} {(value is long[] numbers ? $"{numbers.Length} readings (--json lists them)" : value ?? "-")}"));
        output.Flush();
    }

    private static double? Ms(TimeSpan? latency) => latency is { } l ? Math.Round(l.TotalMilliseconds, 3) : null;

    // VmHWM: the most resident memory the process had at once.
    private static double? PeakRssMb()
    {
        try
        {
            foreach (var line in File.ReadLines("/proc/self/status"))
            {
                if (line.StartsWith("VmHWM:", StringComparison.Ordinal))
                    return Math.Round(long.Parse(line.AsSpan(6).Trim().TrimEnd("kB").Trim(), CultureInfo.InvariantCulture) / 1024.0, 1);
            }
        }
        catch (IOException)
        {
        }
        return null;
    }

    // Utf8JsonWriter rather than the serializer, as WarmupReport: a few fields, no metadata to link.
    private static void WriteJson(TextWriter output, (string Name, object? Value)[] fields)
    {
        var json = new ArrayBufferWriter<byte>(512);
        using (var writer = new Utf8JsonWriter(json))
        {
            writer.WriteStartObject();
            foreach (var (name, value) in fields)
            {
                switch (value)
                {
                    case null: writer.WriteNull(name); break;
                    case int i: writer.WriteNumber(name, i); break;
                    case long l: writer.WriteNumber(name, l); break;
                    case double d: writer.WriteNumber(name, d); break;
                    case long[] numbers:
                        writer.WriteStartArray(name);
                        foreach (var n in numbers) writer.WriteNumberValue(n);
                        writer.WriteEndArray();
                        break;
                    default: writer.WriteString(name, Convert.ToString(value, CultureInfo.InvariantCulture)); break;
                }
            }
            writer.WriteEndObject();
        }
        output.WriteLine(Encoding.UTF8.GetString(json.WrittenSpan));
    }
}
