using Prewire.Build;

// Run by the package's targets; prints what it decided, exits 1 when a gate fails, 2 on a usage error.
//   size check|record --app NAME --rid RID --binary FILE --mstat FILE --budget FILE [--tolerance PERCENT]
//   startup check|record --app NAME --rid RID --binary FILE --floor FILE --baseline FILE [--args "A B"] [--ready REGEX] ...
const string Usage = "usage: Prewire.Build size|startup check|record --name value ... (see the package's README)";
// "@file": the options one per line (the start-up gate writes them so, out of the shell's reach).
args = [.. args.SelectMany(a => a.StartsWith('@') ? File.ReadAllLines(a[1..]) : [a])];
if (args is not [var gate and ("size" or "startup"), var verb and ("check" or "record"), .. var rest] || Options.Parse(rest) is not { } options)
{
    Console.WriteLine(Usage);
    return 2;
}
try
{
    var record = verb == "record";
    var (passed, lines) = gate == "size" ? SizeCheck.Run(options, record) : await StartupCheck.RunAsync(options, record);
    foreach (var line in lines) Console.WriteLine(line);
    return passed ? 0 : 1;
}
catch (UsageException e)
{
    Console.WriteLine($"{e.Message}; {Usage}");
    return 2;
}
