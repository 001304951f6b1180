namespace Prewire.Amqp;

/// <summary>Why an <see cref="AmqpException"/> was raised.</summary>
public enum AmqpExceptionKind
{
    /// <summary>connection.close from the broker (authentication, vhost, forced close, ...).</summary>
    ConnectionClosed,

    /// <summary>channel.close from the broker (missing exchange, access, ...).</summary>
    ChannelClosed,

    /// <summary>basic.nack for a published message.</summary>
    Nacked,

    /// <summary>basic.return for a mandatory message no queue took.</summary>
    Returned,

    /// <summary>basic.cancel from the broker: the consumer's queue was deleted (or, in a cluster, its node went).</summary>
    ConsumerCancelled,
}
