using System.Diagnostics.CodeAnalysis;
using System.Globalization;

// Top-level statements on purpose: their Program is in the global namespace, so only a gate that
// decides by assembly (not by a namespace prefix) sees this warning as ours.
Console.WriteLine(CountMethods(typeof(Console)));
return 0;

[RequiresUnreferencedCode("Reflects over methods the trimmer may remove.")]
static string CountMethods(Type type) => type.GetMethods().Length.ToString(CultureInfo.InvariantCulture);
