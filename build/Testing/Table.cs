namespace Prewire.Testing;

/// <summary>A Markdown table with aligned columns: readable in a terminal, pasteable into docs.</summary>
public static class Table
{
    /// <summary>Bytes as MB with one decimal, for a cell.</summary>
    public static string Mb(long bytes) => (bytes / 1024.0 / 1024.0).ToString("0.0 'MB'", System.Globalization.CultureInfo.InvariantCulture);

    /// <summary>Milliseconds with one decimal, for a cell.</summary>
    public static string Ms(double ms) => ms.ToString("0.0 'ms'", System.Globalization.CultureInfo.InvariantCulture);

    public static void Write(TextWriter output, string[] header, IReadOnlyList<string[]> rows)
    {
        ArgumentNullException.ThrowIfNull(output);
        ArgumentNullException.ThrowIfNull(header);
        ArgumentNullException.ThrowIfNull(rows);
        var widths = header.Select((h, i) => rows.Select(r => r[i].Length).Append(h.Length).Max()).ToArray();
        string Line(string[] cells) => "| " + string.Join(" | ", cells.Select((c, i) => i == 0 ? c.PadRight(widths[i]) : c.PadLeft(widths[i]))) + " |";
        output.WriteLine(Line(header));
        output.WriteLine("|" + string.Join("|", widths.Select((w, i) => i == 0 ? new string('-', w + 2) : new string('-', w + 1) + ":")) + "|");
        foreach (var row in rows) output.WriteLine(Line(row));
    }
}
