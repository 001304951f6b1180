namespace Prewire.Samples;

/// <summary>The exit codes every app uses.</summary>
public static class ExitCodes
{
    /// <summary>Done.</summary>
    public const int Success = 0;

    /// <summary>A runtime failure: unreachable broker, bad URI, refused credentials.</summary>
    public const int Failure = 1;

    /// <summary>The command line was wrong: unknown flag, missing or malformed value.</summary>
    public const int Usage = 2;
}
