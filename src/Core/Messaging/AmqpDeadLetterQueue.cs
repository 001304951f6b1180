using Prewire.Amqp;

namespace Prewire.Messaging;

/// <summary>
/// Dead letters published by the consumer itself with Prewire's own <see cref="AmqpPublisher"/>, on a
/// channel of the session's connection with confirms, to the queue's dead-letter exchange: the body as
/// delivered (not copied), its headers, and why (<see cref="DeadLetterHeaders"/>). The delivery is
/// acknowledged only after the broker confirmed the dead letter, so a crash in between leaves a
/// duplicate, never a loss.
/// </summary>
public sealed class AmqpDeadLetterQueue : IDeadLetterQueue
{
    private readonly Lock _gate = new();
    private BrokerConnection? _connection;
    private (BrokerSession Session, Task<AmqpPublisher> Publisher)? _current;

    /// <summary>Made without a connection: <see cref="Attach"/> gives it one before the first dead letter.</summary>
    public AmqpDeadLetterQueue()
    {
    }

    /// <summary>Made attached to <paramref name="connection"/> (<see cref="Attach"/>).</summary>
    public AmqpDeadLetterQueue(BrokerConnection connection) => Attach(connection);

    /// <summary>Dead-letters through <paramref name="connection"/>'s session from now on, whichever session that is at the time.</summary>
    public void Attach(BrokerConnection connection)
    {
        ArgumentNullException.ThrowIfNull(connection);
        _connection = connection;
    }

    /// <inheritdoc />
    public async Task SendAsync(TransportReceiveContext message, Exception failure, int attempts)
    {
        ArgumentNullException.ThrowIfNull(message);
        var session = _connection?.Session ?? throw new InvalidOperationException("No connection attached: call Attach before dead-lettering.");
        var (id, contentType, headers) = DeadLetterHeaders.Describe(message, failure, attempts, session.Options.Queue);
        var properties = new BasicProperties { MessageId = id, ContentType = contentType, DeliveryMode = 2, Headers = headers };
        var publisher = await PublisherOf(session).ConfigureAwait(false);
        try
        {
            await publisher.PublishAsync(session.Options.DeadLetterExchange, "", properties, message.Body, mandatory: true).ConfigureAwait(false);
        }
        catch (AmqpException e) when (e.Kind is AmqpExceptionKind.Nacked or AmqpExceptionKind.Returned)
        {
            throw new AmqpException(e.Kind, $"RabbitMQ at {session.Uri} did not take the dead letter of message '{message.MessageId}' ({session.Options.DeadLetterExchange}): {e.Message}", e);
        }
    }

    // One publisher per session, opened on its connection by the first dead letter; a new session (after
    // a reconnection) gets its own, the old one went with its connection.
    private Task<AmqpPublisher> PublisherOf(BrokerSession session)
    {
        lock (_gate)
        {
            if (_current is { } current && ReferenceEquals(current.Session, session)) return current.Publisher;
            var publisher = AmqpPublisher.OpenAsync(AmqpSession.Of(session).Connection);
            _current = (session, publisher);
            return publisher;
        }
    }
}
