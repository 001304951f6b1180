using Prewire.Amqp;
using Prewire.Messaging;
using RabbitMQ.Client;
using RabbitMQ.Client.Events;
using RabbitMQ.Client.Exceptions;

namespace Prewire.RabbitMQ;

/// <summary>
/// The outgoing terminator over RabbitMQ.Client: publishes on a connection's current channel, which has
/// publisher confirms, so a message's task completes when the broker confirmed it and fails when it
/// nacked or returned it, or the connection was lost (<see cref="AmqpException.ConnectionLost"/>).
/// </summary>
public sealed class RabbitMqDispatch : BrokerDispatch
{
    private BrokerConnection? _connection;

    /// <inheritdoc />
    public override string Client => "RabbitMQ.Client";

    /// <summary>Publishes on <paramref name="connection"/>'s session from now on, whichever session that is at the time.</summary>
    public void Attach(BrokerConnection connection)
    {
        ArgumentNullException.ThrowIfNull(connection);
        if (!connection.Session.Options.Confirms) throw new ArgumentException("the session's channel must have publisher confirms on", nameof(connection));
        _connection = connection;
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
        var session = _connection?.Session ?? throw new InvalidOperationException("No connection attached: call Attach before publishing.");
        try
        {
            await session.Channel.BasicPublishAsync(context.Exchange, context.RoutingKey, Mandatory, properties, context.Body, context.CancellationToken).ConfigureAwait(false);
        }
        // The client's messages for these (AlreadyClosedException is one) carry the close reason's
        // ToString, stack traces included: one line each, in the words the zero-copy client uses.
        catch (OperationInterruptedException e)
        {
            throw Lost(session, e);
        }
        // Another publish found the connection lost first and the session was disposed under this one.
        catch (ObjectDisposedException e)
        {
            throw Lost(session, reason: null, e);
        }
        catch (PublishException e)
        {
            throw new AmqpException(e.IsReturn ? AmqpExceptionKind.Returned : AmqpExceptionKind.Nacked,
                $"RabbitMQ at {session.Uri} did not take message {context.MessageId}: {(e.IsReturn ? "returned as unroutable" : "nacked")}", e);
        }
    }

    /// <summary>A lost connection in one line, in the words the zero-copy client uses.</summary>
    internal static AmqpException Lost(BrokerSession session, OperationInterruptedException e) => Lost(session, e.ShutdownReason, e);

    /// <inheritdoc cref="Lost(BrokerSession, OperationInterruptedException)" />
    internal static AmqpException Lost(BrokerSession session, ShutdownEventArgs? reason, Exception e) => new(AmqpExceptionKind.ConnectionClosed,
        $"lost the connection to RabbitMQ at {session.Uri}: {(reason is null ? e.GetType().Name : $"{reason.ReplyText} ({reason.ReplyCode}, closed by the {(reason.Initiator == ShutdownInitiator.Peer ? "broker" : "client")})")}", e);
}
