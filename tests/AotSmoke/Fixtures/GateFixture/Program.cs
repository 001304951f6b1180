using System.Diagnostics.CodeAnalysis;
using System.Globalization;

namespace Prewire.GateFixture;

internal static class Program
{
    private static int Main()
    {
        Console.WriteLine(CountMethods(typeof(Program)));
        return 0;
    }

    [RequiresUnreferencedCode("Reflects over methods the trimmer may remove.")]
    private static string CountMethods(Type type) => type.GetMethods().Length.ToString(CultureInfo.InvariantCulture);
}
