using System.Text.RegularExpressions;

namespace Prewire.Testing;

/// <summary>
/// The warning gate's verdicts, read from a publish's output as npgsql's AOT job reads its own:
/// ILC reports every trim/AOT warning through MSBuild, expanded for our assemblies and collapsed into
/// one IL2104/IL3053 per package (src/Build/build/Prewire.Build.WarningGate.targets), and the gate target lists the
/// allowlisted packages the app compiles in.
/// </summary>
public static partial class WarningGate
{
    /// <summary>Every trim/AOT warning (or, under warnaserror, error) ILC reported, once each.</summary>
    public static IReadOnlyList<TrimWarning> Read(string publishOutput) =>
        IlcLine().Matches(publishOutput)
            .Select(m => CollapsedLine().Match(m.Groups["rest"].Value) is { Success: true } collapsed
                ? new TrimWarning(m.Groups["code"].Value, collapsed.Groups["assembly"].Value, IsPackage: true)
                : new TrimWarning(m.Groups["code"].Value, MemberPart().Match(m.Groups["rest"].Value).Groups["member"].Value, IsPackage: false))
            .Distinct()
            .ToList();

    /// <summary>The allowlisted packages the gate target found compiled into the app.</summary>
    public static IReadOnlyList<string> Allowlisted(string publishOutput) =>
        AllowlistedLine().Matches(publishOutput).Select(m => m.Groups["assembly"].Value).Distinct().ToList();

    /// <summary>What fails the gate: a warning in our code, a package's not allowlisted, an allowlisted package that no longer warns.</summary>
    public static IReadOnlyList<string> Failures(string publishOutput)
    {
        var warnings = Read(publishOutput);
        var allowlisted = Allowlisted(publishOutput);
        var failures = new List<string>();
        foreach (var warning in warnings)
        {
            if (!warning.IsPackage) failures.Add($"{warning.Code} in our code at {warning.Subject}");
            else if (!allowlisted.Contains(warning.Subject)) failures.Add($"{warning.Code} from package {warning.Subject}, which is not allowlisted");
        }
        foreach (var assembly in allowlisted.Where(a => !warnings.Any(w => w.IsPackage && w.Subject == a)))
            failures.Add($"allowlisted {assembly} no longer warns: remove it from build/trim-warnings.allowlist");
        return failures;
    }

    // "<origin>: Trim analysis warning IL2026: Member(Args): message [project]", "AOT analysis" alike,
    // "error" for "warning" under ILC's warnaserror; a package's: "... IL2104: Assembly 'X' produced ...".
    [GeneratedRegex(@"(?:Trim|AOT) analysis (?:warning|error) (?<code>IL[23]\d{3}): (?<rest>.*?)\r?$", RegexOptions.Multiline)]
    private static partial Regex IlcLine();

    // The member ends at the first "): " or, for members without a parameter list, at the first ": ".
    [GeneratedRegex(@"^(?<member>.+?(\)|(?=: ))): ")]
    private static partial Regex MemberPart();

    [GeneratedRegex(@"^Assembly '(?<assembly>[^']+)' produced")]
    private static partial Regex CollapsedLine();

    [GeneratedRegex(@"Warning gate: allowlisted (?<assembly>\S+) \(", RegexOptions.Multiline)]
    private static partial Regex AllowlistedLine();
}
