using System.Buffers;
using Prewire.Messaging;
using RabbitMQ.Client;

namespace Prewire.RabbitMQ;

/// <summary>
/// Dead letters published by the consumer itself, on its session's channel with confirms, to the
/// queue's dead-letter exchange: the body as delivered, its headers, and why
/// (<see cref="MessageHeaders.DeadLetterReason"/> and the exception's type and message), which a
/// broker-side reject cannot carry. The delivery is acknowledged only after the broker confirmed the
/// dead letter, so a crash in between leaves a duplicate, never a loss.
/// </summary>
public sealed class RabbitMqDeadLetterQueue : IDeadLetterQueue
{
    private BrokerConnection? _connection;

    /// <summary>Made without a connection: <see cref="Attach"/> gives it one before the first dead letter.</summary>
    public RabbitMqDeadLetterQueue()
    {
    }

    /// <summary>Made attached to <paramref name="connection"/> (<see cref="Attach"/>).</summary>
    public RabbitMqDeadLetterQueue(BrokerConnection connection) => Attach(connection);

    /// <summary>Dead-letters through <paramref name="connection"/>'s session from now on, whose channel must have publisher confirms on.</summary>
    public void Attach(BrokerConnection connection)
    {
        ArgumentNullException.ThrowIfNull(connection);
        if (!connection.Session.Options.Confirms) throw new ArgumentException("the session's channel must have publisher confirms on", nameof(connection));
        _connection = connection;
    }

    /// <inheritdoc />
    public async Task SendAsync(TransportReceiveContext message, Exception failure, int attempts)
    {
        ArgumentNullException.ThrowIfNull(message);
        ArgumentNullException.ThrowIfNull(failure);
        var session = RabbitMqSession.Of(_connection?.Session ?? throw new InvalidOperationException("No connection attached: call Attach before dead-lettering."));
        var (id, contentType, headers) = DeadLetterHeaders.Describe(message, failure, attempts, session.Options.Queue);
        var properties = new BasicProperties { MessageId = id, ContentType = contentType, DeliveryMode = DeliveryModes.Persistent, Headers = headers };
        await session.PublishAsync(session.Options.DeadLetterExchange, "", mandatory: true, properties, message.Body.IsSingleSegment ? message.Body.First : message.Body.ToArray(), deadLetter: true, CancellationToken.None).ConfigureAwait(false);
    }
}
