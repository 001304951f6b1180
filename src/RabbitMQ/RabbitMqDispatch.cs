using System.Buffers;
using System.Runtime.CompilerServices;
using Prewire.Amqp;
using Prewire.Messaging;
using Prewire.Tasks;
using RabbitMQ.Client;
using BasicProperties = RabbitMQ.Client.BasicProperties;

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
    public override Task AttachAsync(BrokerConnection connection, CancellationToken cancellationToken)
    {
        Attach(connection);
        return Task.CompletedTask;
    }

    /// <inheritdoc />
    [AsyncMethodBuilder(typeof(PooledValueTaskMethodBuilder))]
    protected override async ValueTask Terminate(DispatchContext context)
    {
        var properties = new BasicProperties
        {
            MessageId = context.MessageId,
            ContentType = ContentTypeOf(context),
            DeliveryMode = (DeliveryModes)PersistentDeliveryMode,
            Headers = FieldTableOf(context),
        };
        var telemetry = PublishTelemetry.Start(context, properties.Headers!);
        var session = RabbitMqSession.Of(_connection?.Session ?? throw new InvalidOperationException("No connection attached: call Attach before publishing."));
        // RabbitMQ.Client takes one contiguous body (and copies it into a frame buffer of its own); a
        // body in several segments (an HTTP request's) is joined in a pooled array first.
        var body = context.Body;
        byte[]? joined = null;
        if (!body.IsSingleSegment)
        {
            joined = ArrayPool<byte>.Shared.Rent(checked((int)body.Length));
            body.CopyTo(joined);
        }
        try
        {
            await session.PublishAsync(context.Exchange, context.RoutingKey, Mandatory, properties, joined is null ? body.First : joined.AsMemory(0, (int)body.Length),
                deadLetter: false, context.CancellationToken).ConfigureAwait(false);
            telemetry.Succeeded();
        }
        catch (Exception e)
        {
            telemetry.Failed(e);
            throw;
        }
        finally
        {
            if (joined is not null) ArrayPool<byte>.Shared.Return(joined);
        }
    }
}
