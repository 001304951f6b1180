namespace Prewire.Samples;

/// <summary>
/// A failure the user can act on (unreachable broker, bad URI, refused credentials). The app prints
/// its message as one line on stderr, without a stack trace, and exits with <see cref="ExitCode"/>.
/// </summary>
public sealed class AppException : Exception
{
    /// <summary>Creates the exception.</summary>
    public AppException(string message, int exitCode = ExitCodes.Failure, Exception? innerException = null)
        : base(message, innerException) => ExitCode = exitCode;

    /// <summary>The process exit code this failure maps to.</summary>
    public int ExitCode { get; }
}
