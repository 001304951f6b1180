using Prewire.Amqp;
using Prewire.Framing;

namespace Prewire.Messaging;

/// <summary>
/// The outgoing terminator over Prewire's zero-copy <see cref="AmqpPublisher"/>: frames go straight
/// into the connection's pipe, the body is never copied. It has a connection of its own, opened by
/// <see cref="ConnectAsync"/>; the topology (queues, bindings) is declared by whoever owns it.
/// </summary>
public sealed class AmqpPublisherDispatch : BrokerDispatch
{
    private AmqpPublisher? _publisher;

    /// <inheritdoc />
    public override string Client => "AmqpPublisher";

    /// <summary>Connects; from then on every message goes through this connection.</summary>
    /// <exception cref="AmqpException">The broker could not be reached or refused the connection; the message says which and why.</exception>
    public async Task ConnectAsync(AmqpPublisherOptions options, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(options);
        try
        {
            _publisher = await AmqpPublisher.ConnectAsync(options, cancellationToken).ConfigureAwait(false);
        }
        catch (Exception e) when (e is IOException or AmqpException or NotSupportedException)
        {
            throw new AmqpException($"AmqpPublisher cannot connect to {options.Uri}: {e.Message}", e);
        }
    }

    /// <inheritdoc />
    protected override async Task Terminate(DispatchContext context)
    {
        var properties = new BasicProperties
        {
            MessageId = context.MessageId,
            ContentType = ContentTypeOf(context),
            DeliveryMode = PersistentDeliveryMode,
            Headers = FieldTableOf(context),
        };
        var publisher = _publisher ?? throw new InvalidOperationException("Not connected: call ConnectAsync before publishing.");
        await publisher.PublishAsync(context.Exchange, context.RoutingKey, properties, context.Body, Mandatory, context.CancellationToken).ConfigureAwait(false);
    }

    /// <inheritdoc />
    public override async ValueTask DisposeAsync()
    {
        if (_publisher is not null) await _publisher.DisposeAsync().ConfigureAwait(false);
        await base.DisposeAsync().ConfigureAwait(false);
    }
}
