using Serilog;
using Serilog.Events;

namespace Prewire.Samples;

/// <summary>Serilog console logging, one template for every app.</summary>
/// <remarks>
/// Log scalars: <c>{@Value}</c> destructuring reflects over the runtime type, which trimming may
/// have cut down.
/// </remarks>
public static class AppLogging
{
    private const string Template = "[{Timestamp:HH:mm:ss.fff} {Level:u3}] {Message:lj}{NewLine}{Exception}";

    /// <summary>
    /// Creates a console logger at <paramref name="level"/> on stdout, where stderr is kept for the
    /// one-line error an app prints when it fails; on stderr when stdout is for a JSON report.
    /// </summary>
    public static Serilog.Core.Logger Create(LogEventLevel level, bool toStandardError = false) =>
        new LoggerConfiguration()
            .MinimumLevel.Is(level)
            .WriteTo.Console(outputTemplate: Template, formatProvider: System.Globalization.CultureInfo.InvariantCulture,
                standardErrorFromLevel: toStandardError ? LogEventLevel.Verbose : null)
            .CreateLogger();
}
