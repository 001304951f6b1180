using Prewire.Build;

// Run by the package's targets: `size check|record --app A --rid R --binary F --mstat F --budget F [--tolerance P]`.
// Prints one line; exits 1 when the gate fails, 2 on a usage error.
if (args is not ["size", var verb and ("check" or "record"), .. var rest] || !Options.TryParse(rest, out var options))
{
    Console.WriteLine("usage: Prewire.Build size check|record --app NAME --rid RID --binary FILE --mstat FILE --budget FILE [--tolerance PERCENT]");
    return 2;
}
if (!File.Exists(options.Binary))
{
    Console.WriteLine($"Size budget: {options.Binary} does not exist");
    return 2;
}
if (verb == "record")
{
    Console.WriteLine(SizeCheck.Record(options.App, options.Rid, options.Binary, options.Mstat, options.Budget));
    return 0;
}
var (passed, line) = SizeCheck.Check(options.App, options.Rid, options.Binary, options.Mstat, options.Budget, options.TolerancePercent);
Console.WriteLine(line);
return passed ? 0 : 1;
