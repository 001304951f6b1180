using System.Diagnostics;
using System.Globalization;
using System.Runtime.CompilerServices;

namespace Prewire.Fixtures;

/// <summary>Work before Main, as a regression would add it: the thread stays busy for the configured milliseconds.</summary>
internal static class StartupDelay
{
#pragma warning disable CA2255 // A module initializer is the point: it runs before the app's own code.
    [ModuleInitializer]
#pragma warning restore CA2255
    internal static void Delay()
    {
        var ms = double.Parse((string)AppContext.GetData("Prewire.StartupDelayMs")!, CultureInfo.InvariantCulture);
        var until = Stopwatch.GetTimestamp() + (long)(ms * Stopwatch.Frequency / 1000);
        // A plain loop: Thread.SpinWait would first calibrate itself, which costs milliseconds of its own.
        while (Stopwatch.GetTimestamp() < until)
        {
        }
    }
}
