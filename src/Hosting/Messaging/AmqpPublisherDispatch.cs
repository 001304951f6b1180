using Prewire.Amqp;
using Prewire.Framing;
using Prewire.Pipeline;

namespace Prewire.Hosting.Messaging;

/// <summary>
/// The outgoing terminator over Prewire's <see cref="AmqpPublisher"/> (<c>--amqp-publisher</c>): frames
/// go straight into the connection's pipe, the body is never copied. Publishes with <c>mandatory</c> set
/// and confirms on, like <see cref="RabbitMqDispatch"/>: the returned task completes on the broker's
/// ack and fails on a nack or a return. Its own connection, next to the session's (which declared the queue).
/// </summary>
public sealed class AmqpPublisherDispatch : BrokerDispatch
{
    private AmqpPublisher? _publisher;

    /// <inheritdoc />
    public override string Client => "AmqpPublisher";

    /// <inheritdoc />
    public override async Task AttachAsync(BrokerSession session, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(session);
        var uri = session.Uri ?? throw new InvalidOperationException("No broker in this session: connect before publishing.");
        try
        {
            _publisher = await AmqpPublisher.ConnectAsync(new AmqpPublisherOptions { Uri = uri, ClientName = session.ClientName }, cancellationToken).ConfigureAwait(false);
        }
        catch (Exception e) when (e is IOException or AmqpException)
        {
            throw new AppException($"AmqpPublisher cannot connect to {Broker.Redact(uri)}: {e.Message}", innerException: e);
        }
    }

    /// <inheritdoc />
    protected override async Task Terminate(DispatchContext context)
    {
        ArgumentNullException.ThrowIfNull(context);
        var properties = new BasicProperties
        {
            MessageId = context.MessageId,
            ContentType = context.Headers.GetValueOrDefault(Prewire.Messaging.MessageHeaders.ContentType),
            DeliveryMode = 2, // persistent
            Headers = AmqpHeaders.ToAmqp(context.Headers),
        };
        var publisher = _publisher ?? throw new InvalidOperationException("No publisher attached: connect before publishing.");
        await publisher.PublishAsync(context.Exchange, context.RoutingKey, properties, context.Body, mandatory: true, context.CancellationToken).ConfigureAwait(false);
    }

    /// <inheritdoc />
    public override async ValueTask DisposeAsync()
    {
        if (_publisher is not null) await _publisher.DisposeAsync().ConfigureAwait(false);
        await base.DisposeAsync().ConfigureAwait(false);
    }
}
