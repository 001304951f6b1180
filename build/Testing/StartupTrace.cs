using System.Globalization;
using ELFSharp.ELF;
using ELFSharp.ELF.Sections;
using Prewire.Build;

namespace Prewire.Testing;

/// <summary>
/// The managed methods a run of an app executes, in the order it first reaches them: valgrind's lackey
/// writes the address of every block of code the run enters, and the build's symbols (its <c>.dbg</c>)
/// name them. What an app's <c>startup-order.txt</c> lists (ILC lays those methods out first, together:
/// <c>IlcOrderFile</c>, build/NativeAot.props), and how spread out a start's code is.
/// </summary>
public static class StartupTrace
{
    /// <summary>
    /// A file-backed page fault maps the 16 pages around the one touched, so a start pays about one fault
    /// per 64 KiB window of code it runs in.
    /// </summary>
    public const ulong FaultAroundBytes = 64 * 1024;

    // valgrind loads a position-independent x64 executable here: a traced address less this is the symbols'.
    private const ulong PieBase = 0x108000;

    // lackey runs a start some 100 times slower (the HttpEndpoint's 16 ms: ~2 s).
    private const int Slowdown = 20;

    private const string ManagedCodeSection = "__managedcode";

    /// <summary>Whether runs of <paramref name="rid"/> can be traced here (valgrind installed, the RID this host's).</summary>
    public static bool Traces(string rid) => Cachegrind.Counts(rid);

    /// <summary>Runs <paramref name="aot"/> with <paramref name="args"/> under lackey (to SIGTERM at its ready line with <paramref name="stopAtReady"/>).</summary>
    public static async Task<StartupTraceResult> RunAsync(PublishResult aot, IReadOnlyList<string> args, bool stopAtReady)
    {
        ArgumentNullException.ThrowIfNull(aot);
        var log = await WatchedRun.RunAsync(aot.ExecutablePath, aot.Rid, args, stopAtReady,
            file => ["valgrind", "--tool=lackey", "--trace-superblocks=yes", $"--log-file={file}"], Slowdown, launcherForks: false,
            StartupInstruments.CachegrindEnvironment).ConfigureAwait(false);
        var entered = Entered(log);
        using var elf = ELFReader.Load<ulong>(aot.SymbolsPath);
        if (!entered.Contains(elf.EntryPoint + PieBase))
            throw new InvalidOperationException($"{aot.ExecutablePath}: its entry point was not traced at 0x{elf.EntryPoint + PieBase:x}: valgrind loaded it elsewhere than 0x{PieBase:x}");

        var methods = ManagedMethods(elf);
        var starts = methods.Select(m => m.Start).ToArray();
        var run = new List<int>();
        var seen = new HashSet<int>();
        var windows = new HashSet<ulong>();
        foreach (var address in entered.Select(a => a - PieBase))
        {
            var i = Array.BinarySearch(starts, address);
            if (i < 0) i = ~i - 1;
            if (i < 0 || address >= methods[i].Start + methods[i].Size) continue;
            windows.Add(address / FaultAroundBytes);
            if (seen.Add(i)) run.Add(i);
        }
        return new StartupTraceResult(run.Select(i => methods[i].Name).ToList(), windows.Count, run.Sum(i => (long)methods[i].Size));
    }

    // Each block's address once, in the order the run first entered it ("SB 0011b190" lines).
    private static List<ulong> Entered(string log)
    {
        var seen = new HashSet<ulong>();
        var entered = new List<ulong>();
        foreach (var line in log.AsSpan().EnumerateLines())
        {
            if (line.StartsWith("SB ", StringComparison.Ordinal)
                && ulong.TryParse(line[3..], NumberStyles.AllowHexSpecifier, CultureInfo.InvariantCulture, out var address)
                && seen.Add(address))
            {
                entered.Add(address);
            }
        }
        return entered;
    }

    // The symbols of ILC's managed code, by address: each compiled method, under the name ILC gave it.
    private static List<(ulong Start, ulong Size, string Name)> ManagedMethods(IELF elf)
    {
        var code = (Section<ulong>)elf.Sections.Single(s => s.Name == ManagedCodeSection);
        var symbols = (ISymbolTable)elf.GetSection(".symtab");
        return symbols.Entries.OfType<SymbolEntry<ulong>>()
            .Where(s => s.Size > 0 && s.Value >= code.LoadAddress && s.Value < code.LoadAddress + code.Size)
            .Select(s => (s.Value, s.Size, s.Name))
            .DistinctBy(s => s.Value)
            .OrderBy(s => s.Value)
            .ToList();
    }
}
