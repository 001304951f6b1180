using Prewire.Amqp;
using Prewire.Messaging;
using RabbitMQ.Client;
using RabbitMQ.Client.Events;
using RabbitMQ.Client.Exceptions;

namespace Prewire.RabbitMQ;

/// <summary>
/// The outgoing terminator over RabbitMQ.Client: publishes on a session's channel, which has publisher
/// confirms, so a message's task completes when the broker confirmed it and fails when it nacked or
/// returned it.
/// </summary>
public sealed class RabbitMqDispatch : BrokerDispatch
{
    private BrokerSession? _session;

    /// <inheritdoc />
    public override string Client => "RabbitMQ.Client";

    /// <summary>Publishes on <paramref name="session"/>'s channel from now on.</summary>
    public void Attach(BrokerSession session)
    {
        ArgumentNullException.ThrowIfNull(session);
        if (!session.Options.Confirms) throw new ArgumentException("the session's channel must have publisher confirms on", nameof(session));
        _session = session;
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
        var channel = _session?.Channel ?? throw new InvalidOperationException("No channel attached: call Attach before publishing.");
        try
        {
            await channel.BasicPublishAsync(context.Exchange, context.RoutingKey, Mandatory, properties, context.Body, context.CancellationToken).ConfigureAwait(false);
        }
        // The client's messages for these carry the close reason's ToString, stack traces included:
        // one line each, in the words the zero-copy client uses.
        catch (AlreadyClosedException e)
        {
            throw Lost(e.ShutdownReason, e);
        }
        catch (OperationInterruptedException e)
        {
            throw Lost(e.ShutdownReason, e);
        }
        catch (PublishException e)
        {
            throw new AmqpException($"RabbitMQ at {_session?.Options.Uri} did not take message {context.MessageId}: {(e.IsReturn ? "returned as unroutable" : "nacked")}", e);
        }
    }

    private AmqpException Lost(ShutdownEventArgs? reason, Exception e) => new(
        $"lost the connection to RabbitMQ at {_session?.Options.Uri}: {(reason is null ? e.GetType().Name : $"{reason.ReplyText} ({reason.ReplyCode}, closed by the {(reason.Initiator == ShutdownInitiator.Peer ? "broker" : "client")})")}", e);
}
