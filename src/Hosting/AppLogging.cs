using Serilog;
using Serilog.Events;

namespace Prewire.Hosting;

/// <summary>Serilog console logging the AOT-safe way.</summary>
/// <remarks>
/// Serilog 3.1.1's <c>{@Value}</c> destructuring reflects over the runtime type and logs <c>{}</c>
/// under NativeAOT (trim warning IL2072, allowlisted in build/trim-warnings.allowlist). Log scalars.
/// </remarks>
public static class AppLogging
{
    private const string Template = "[{Timestamp:HH:mm:ss.fff} {Level:u3}] {Message:lj}{NewLine}{Exception}";

    /// <summary>
    /// Creates a console logger at <paramref name="level"/> on stdout; stderr is kept for the one-line
    /// error an app prints when it fails.
    /// </summary>
    public static Serilog.Core.Logger Create(LogEventLevel level) =>
        new LoggerConfiguration()
            .MinimumLevel.Is(level)
            .WriteTo.Console(outputTemplate: Template, formatProvider: System.Globalization.CultureInfo.InvariantCulture)
            .CreateLogger();
}
