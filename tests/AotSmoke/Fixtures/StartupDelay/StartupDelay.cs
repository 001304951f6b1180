using System.Diagnostics;
using System.Globalization;
using System.Runtime.CompilerServices;

namespace Prewire.Fixtures;

/// <summary>
/// A regression before Main, of the kind the start-up gate must catch. Which one is read at start from
/// the file <c>startup-delay</c> beside the binary (<c>kind amount</c>), so that one publish serves every
/// delay: <c>busy</c> keeps the thread busy for N ms of wall clock, <c>work</c> runs a fixed loop that
/// takes N µs natively here (the same instructions however slow the machine), <c>sleep</c> sleeps N ms
/// (no instructions at all).
/// </summary>
internal static class StartupDelay
{
    /// <summary>
    /// Iterations of <see cref="Work"/>'s loop a microsecond: 603-607 on this 2-core build machine
    /// (100 million iterations timed five times), so 200 µs of work is 120,000 iterations.
    /// </summary>
    internal const double IterationsPerMicrosecond = 600;

    private static ulong _sink;

#pragma warning disable CA2255 // A module initializer is the point: it runs before the app's own code.
    [ModuleInitializer]
#pragma warning restore CA2255
    internal static void Delay()
    {
        var file = Path.Combine(AppContext.BaseDirectory, "startup-delay");
        var delay = File.Exists(file) ? File.ReadAllText(file).Split(' ', StringSplitOptions.TrimEntries) : [];
        if (delay.Length != 2) throw new InvalidOperationException($"{file} says busy|work|sleep and an amount, e.g. \"work 200\"");
        var amount = double.Parse(delay[1], CultureInfo.InvariantCulture);
        switch (delay[0])
        {
            case "busy":
                var until = Stopwatch.GetTimestamp() + (long)(amount * Stopwatch.Frequency / 1000);
                // A plain loop: Thread.SpinWait would first calibrate itself, which costs milliseconds of its own.
                while (Stopwatch.GetTimestamp() < until)
                {
                }
                break;
            case "work":
                Work((long)(amount * IterationsPerMicrosecond));
                break;
            case "sleep":
                Thread.Sleep(TimeSpan.FromMilliseconds(amount));
                break;
            default:
                throw new InvalidOperationException($"{file}: the kind is busy, work or sleep, not {delay[0]}");
        }
    }

    // xorshift: a dependent chain the compiler cannot fold, kept alive through a volatile write.
    private static void Work(long iterations)
    {
        var x = 88172645463325252UL;
        for (var i = 0L; i < iterations; i++)
        {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
        }
        Volatile.Write(ref _sink, x);
    }
}
