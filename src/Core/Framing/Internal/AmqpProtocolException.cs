namespace Prewire.Framing.Internal;

/// <summary>
/// The bytes are not valid AMQP 0-9-1: a bad frame type or frame-end, a frame over frame-max, a length
/// running past its frame, a table nested too deep, an unknown field type. The message says which.
/// </summary>
internal sealed class AmqpProtocolException : Exception
{
    /// <summary>Creates the exception.</summary>
    public AmqpProtocolException(string message)
        : base(message)
    {
    }

    /// <summary>Creates the exception.</summary>
    public AmqpProtocolException()
        : this("Invalid AMQP 0-9-1 data.")
    {
    }

    /// <summary>Creates the exception.</summary>
    public AmqpProtocolException(string message, Exception innerException)
        : base(message, innerException)
    {
    }
}
