using Prewire.Pipeline;
using RabbitMQ.Client;

namespace Prewire.Hosting.Messaging;

/// <summary>
/// The outgoing terminator over RabbitMQ.Client: publishes with <c>mandatory</c> set on a channel with
/// publisher confirms, so the returned task completes when the broker confirmed the message and fails
/// when it nacked or returned it.
/// </summary>
/// <remarks>
/// The pipeline is built before the connection exists (so start-up can validate and describe it
/// without a broker); the channel is attached once connected.
/// </remarks>
public sealed class RabbitMqDispatch : PipelineTerminator<DispatchContext>
{
    private IChannel? _channel;

    /// <summary>Publishes on <paramref name="channel"/> from now on.</summary>
    public void Attach(IChannel channel) => _channel = channel;

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
