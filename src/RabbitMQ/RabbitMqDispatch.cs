using Prewire.Messaging;
using RabbitMQ.Client;

namespace Prewire.RabbitMQ;

/// <summary>
/// The outgoing terminator over RabbitMQ.Client: publishes on a session's channel, which has publisher
/// confirms, so a message's task completes when the broker confirmed it and fails when it nacked or
/// returned it.
/// </summary>
public sealed class RabbitMqDispatch : BrokerDispatch
{
    private IChannel? _channel;

    /// <inheritdoc />
    public override string Client => "RabbitMQ.Client";

    /// <summary>Publishes on <paramref name="session"/>'s channel from now on.</summary>
    public void Attach(BrokerSession session)
    {
        ArgumentNullException.ThrowIfNull(session);
        if (!session.Options.Confirms) throw new ArgumentException("the session's channel must have publisher confirms on", nameof(session));
        _channel = session.Channel;
    }

    /// <inheritdoc />
    protected override async Task Terminate(DispatchContext context)
    {
        var properties = new BasicProperties
        {
            MessageId = context.MessageId,
            ContentType = ContentTypeOf(context),
            DeliveryMode = (DeliveryModes)PersistentDeliveryMode,
            Headers = FieldTableOf(context),
        };
        var channel = _channel ?? throw new InvalidOperationException("No channel attached: call Attach before publishing.");
        await channel.BasicPublishAsync(context.Exchange, context.RoutingKey, Mandatory, properties, context.Body, context.CancellationToken).ConfigureAwait(false);
    }
}
