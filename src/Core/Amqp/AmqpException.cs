namespace Prewire.Amqp;

/// <summary>The broker closed the connection or the channel: <see cref="ReplyCode"/> and <see cref="ReplyText"/> are its words.</summary>
public sealed class AmqpException : Exception
{
    /// <summary>Creates the exception.</summary>
    public AmqpException(AmqpExceptionKind kind, ushort replyCode, string replyText, Exception? innerException = null)
        : base($"{Describe(kind)}: {replyCode} {replyText}", innerException)
    {
        Kind = kind;
        ReplyCode = replyCode;
        ReplyText = replyText;
    }

    /// <summary>Creates the exception.</summary>
    public AmqpException()
        : this(AmqpExceptionKind.ConnectionClosed, 0, "")
    {
    }

    /// <summary>Creates the exception.</summary>
    public AmqpException(string message)
        : base(message)
    {
        ReplyText = message;
    }

    /// <summary>Creates the exception.</summary>
    public AmqpException(string message, Exception innerException)
        : base(message, innerException)
    {
        ReplyText = message;
    }

    /// <summary>Creates the exception in a client's own words.</summary>
    public AmqpException(AmqpExceptionKind kind, string message, Exception? innerException)
        : base(message, innerException)
    {
        Kind = kind;
        ReplyText = message;
    }

    // The broker's words, prefixed with which broker said them (never with the password).
    internal AmqpException(string broker, AmqpException said)
        : base($"{broker}: {said.Message}", said)
    {
        Kind = said.Kind;
        ReplyCode = said.ReplyCode;
        ReplyText = said.ReplyText;
    }

    /// <summary>What was closed or refused.</summary>
    public AmqpExceptionKind Kind { get; }

    /// <summary>The AMQP reply code (e.g. 403, 404, 312).</summary>
    public ushort ReplyCode { get; }

    /// <summary>The broker's reply text.</summary>
    public string ReplyText { get; } = "";

    /// <summary>
    /// <see langword="true"/> when the connection was lost, not the message refused: publishing it again
    /// on a new connection may succeed. A nack, a return or a closed channel (a missing exchange, no
    /// access) would fail the same way again.
    /// </summary>
    public bool ConnectionLost => Kind == AmqpExceptionKind.ConnectionClosed;

    /// <summary>
    /// The connection is gone, whichever way it went: closed by the broker (<see cref="ConnectionLost"/>),
    /// failed under a read or a send (<see cref="IOException"/>: a node stopping may reset the socket before
    /// its close frame is read), or disposed meanwhile.
    /// </summary>
    internal static bool IsConnectionLoss(Exception? failure) =>
        failure is IOException or ObjectDisposedException || failure is AmqpException { ConnectionLost: true };

    private static string Describe(AmqpExceptionKind kind) => kind switch
    {
        AmqpExceptionKind.ConnectionClosed => "the broker closed the connection",
        AmqpExceptionKind.ChannelClosed => "the broker closed the channel",
        AmqpExceptionKind.Nacked => "the broker refused the message (basic.nack)",
        AmqpExceptionKind.Returned => "the broker returned the message as unroutable",
        AmqpExceptionKind.ConsumerCancelled => "the broker cancelled the consumer",
        _ => "AMQP error",
    };
}
