// Compiled by MSBuild's RoslynCodeTaskFactory for build/WarningGate.targets.
using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Text;
using System.Text.RegularExpressions;
using Microsoft.Build.Framework;
using Microsoft.Build.Utilities;

public sealed class PrewireWarningGate : Task
{
    // ILC prints: "ILC : Trim analysis warning IL2072: Some.Type.Member(Args): message"
    // (AOT analysis warnings read the same with "AOT analysis"). The member ends at the first "): "
    // or, for members without a parameter list, at the first ": ".
    private static readonly Regex WarningLine = new Regex(
        @"warning (?<code>IL[23]\d{3}): (?<member>.+?(\)|(?=: ))): (?<message>.*)$",
        RegexOptions.Compiled | RegexOptions.CultureInvariant);

    [Required] public string IlcOutput { get; set; } = "";
    [Required] public string Allowlist { get; set; } = "";
    [Required] public ITaskItem[] CompiledAssemblies { get; set; } = Array.Empty<ITaskItem>();
    [Required] public string OwnAssemblyPrefix { get; set; } = "";
    [Required] public string Report { get; set; } = "";

    public override bool Execute()
    {
        if (!File.Exists(IlcOutput))
        {
            Log.LogError(null, "PREWIRE010", null, IlcOutput, 0, 0, 0, 0,
                "Warning gate: ILC output was not captured at '{0}'.", IlcOutput);
            return false;
        }

        var entries = ReadAllowlist();
        if (entries == null) return false;

        var compiled = new HashSet<string>(
            CompiledAssemblies.Select(i => Path.GetFileNameWithoutExtension(i.ItemSpec)),
            StringComparer.OrdinalIgnoreCase);

        var seen = new List<(string Code, string Member, string Message)>();
        foreach (var line in File.ReadLines(IlcOutput))
        {
            var m = WarningLine.Match(line);
            if (m.Success) seen.Add((m.Groups["code"].Value, m.Groups["member"].Value, m.Groups["message"].Value));
        }

        var report = new StringBuilder();
        var failures = new List<string>();
        foreach (var w in seen.Distinct())
        {
            var allowed = entries.FirstOrDefault(e => e.Code == w.Code && e.Member == w.Member);
            string verdict;
            if (w.Member.StartsWith(OwnAssemblyPrefix, StringComparison.Ordinal))
            {
                verdict = "own-code";
                failures.Add($"{w.Code} in our own code at {w.Member}: {w.Message}");
            }
            else if (allowed != null)
            {
                verdict = "allowlisted";
                allowed.Seen = true;
            }
            else
            {
                verdict = "not-allowlisted";
                failures.Add($"{w.Code} from a package at {w.Member}: {w.Message}");
            }
            report.Append(verdict).Append(" | ").Append(w.Code).Append(" | ").Append(w.Member).Append('\n');
            // Listed on every run, also when ILC was up to date and printed nothing.
            Log.LogMessage(MessageImportance.High, "  Warning gate: found {0} at {1} ({2})", w.Code, w.Member, verdict);
        }

        foreach (var stale in entries.Where(e => !e.Seen && compiled.Contains(e.Assembly)))
        {
            report.Append("stale | ").Append(stale.Code).Append(" | ").Append(stale.Member).Append('\n');
            failures.Add($"allowlist entry {stale.Code} {stale.Member} ({stale.Assembly}) no longer occurs; remove it from {Allowlist}");
        }

        Directory.CreateDirectory(Path.GetDirectoryName(Path.GetFullPath(Report)));
        File.WriteAllText(Report, report.ToString());

        foreach (var failure in failures)
        {
            Log.LogError(null, "PREWIRE011", null, null, 0, 0, 0, 0, "Warning gate: " + failure);
        }
        if (failures.Count == 0)
        {
            Log.LogMessage(MessageImportance.High,
                "  Warning gate: {0} trim/AOT warning(s), all allowlisted ({1}).", seen.Count, Report);
        }
        return failures.Count == 0;
    }

    private sealed class Entry
    {
        public string Code = "";
        public string Assembly = "";
        public string Member = "";
        public bool Seen;
    }

    private List<Entry> ReadAllowlist()
    {
        var entries = new List<Entry>();
        var lineNumber = 0;
        foreach (var raw in File.ReadLines(Allowlist))
        {
            lineNumber++;
            var line = raw.Trim();
            if (line.Length == 0 || line[0] == '#') continue;
            var parts = line.Split(new[] { " | " }, StringSplitOptions.None);
            if (parts.Length != 4 || !Regex.IsMatch(parts[0], @"^IL[23]\d{3}$") || parts[3].Trim().Length == 0)
            {
                Log.LogError(null, "PREWIRE012", null, Allowlist, lineNumber, 0, 0, 0,
                    "Allowlist line must read 'ILxxxx | Assembly | Member | reason'.");
                return null;
            }
            if (parts[2].StartsWith(OwnAssemblyPrefix, StringComparison.Ordinal))
            {
                Log.LogError(null, "PREWIRE012", null, Allowlist, lineNumber, 0, 0, 0,
                    "Our own code cannot be allowlisted: fix the warning at {0}.", parts[2]);
                return null;
            }
            entries.Add(new Entry { Code = parts[0].Trim(), Assembly = parts[1].Trim(), Member = parts[2].Trim() });
        }
        return entries;
    }
}
