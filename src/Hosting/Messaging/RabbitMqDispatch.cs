using Prewire.Pipeline;
using RabbitMQ.Client;

namespace Prewire.Hosting.Messaging;

/// <summary>
/// The outgoing terminator over RabbitMQ.Client: publishes with <c>mandatory</c> set on the session's
/// channel, which has publisher confirms, so the returned task completes when the broker confirmed
/// the message and fails when it nacked or returned it.
/// </summary>
public sealed class RabbitMqDispatch : BrokerDispatch
{
    private IChannel? _channel;

    /// <inheritdoc />
    public override string Client => "RabbitMQ.Client";

    /// <inheritdoc />
    public override Task AttachAsync(BrokerSession session, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(session);
        _channel = session.Channel;
        return Task.CompletedTask;
    }

    /// <inheritdoc />
    protected override async Task Terminate(DispatchContext context)
    {
        ArgumentNullException.ThrowIfNull(context);
        var properties = new BasicProperties
        {
            MessageId = context.MessageId,
            ContentType = context.Headers.GetValueOrDefault(Prewire.Messaging.MessageHeaders.ContentType),
            DeliveryMode = DeliveryModes.Persistent,
            Headers = AmqpHeaders.ToAmqp(context.Headers),
        };
        var channel = _channel ?? throw new InvalidOperationException("No channel attached: connect before publishing.");
        await channel.BasicPublishAsync(context.Exchange, context.RoutingKey, mandatory: true, properties, context.Body, context.CancellationToken).ConfigureAwait(false);
    }
}
