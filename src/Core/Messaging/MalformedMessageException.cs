namespace Prewire.Messaging;

/// <summary>
/// A delivery that can never be handled as it is (a body that does not decode, a content type not
/// understood): retrying it is pointless, it goes to the dead-letter queue at once.
/// </summary>
public sealed class MalformedMessageException : Exception
{
    /// <summary>Creates the exception.</summary>
    public MalformedMessageException()
    {
    }

    /// <summary>Creates the exception.</summary>
    public MalformedMessageException(string message)
        : base(message)
    {
    }

    /// <summary>Creates the exception.</summary>
    public MalformedMessageException(string message, Exception innerException)
        : base(message, innerException)
    {
    }
}
