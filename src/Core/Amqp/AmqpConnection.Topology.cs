using Prewire.Amqp.Internal;
using Prewire.Framing.Internal;
using Prewire.Framing.Internal.Methods;
using Prewire.Tasks;

namespace Prewire.Amqp;

public sealed partial class AmqpConnection
{
    private readonly AsyncLock _topologyTurn = new();
    private TopologyChannel? _topology;

    /// <summary>Declares an exchange (exchange.declare), or checks that an equal one exists.</summary>
    /// <param name="exchange">Its name.</param>
    /// <param name="type"><c>direct</c>, <c>fanout</c>, <c>topic</c>, <c>headers</c>, or a plugin's type.</param>
    /// <param name="durable">Survives a broker restart.</param>
    /// <param name="autoDelete">Deleted when its last binding goes.</param>
    /// <param name="arguments">Optional arguments (<c>alternate-exchange</c>, ...).</param>
    /// <param name="cancellationToken">Stops waiting for the broker's reply.</param>
    /// <exception cref="AmqpException">The broker refused: 406 for an existing exchange declared differently, 403 for no access.</exception>
    public Task DeclareExchangeAsync(string exchange, string type, bool durable = true, bool autoDelete = false, Dictionary<string, object?>? arguments = null, CancellationToken cancellationToken = default) =>
        CallTopologyAsync<ExchangeDeclare, ExchangeDeclareOk>(new ExchangeDeclare(0, exchange, type, false, durable, autoDelete, false, false, arguments), cancellationToken);

    /// <summary>Declares a queue (queue.declare), or checks that an equal one exists; its state as the broker reports it.</summary>
    /// <param name="queue">Its name; empty for one the broker names (in the result).</param>
    /// <param name="durable">Survives a broker restart (a quorum queue must be).</param>
    /// <param name="exclusive">Used by this connection only, and deleted with it.</param>
    /// <param name="autoDelete">Deleted when its last consumer goes.</param>
    /// <param name="arguments">
    /// <c>x-queue-type</c> (<c>classic</c>, <c>quorum</c>), <c>x-dead-letter-exchange</c>,
    /// <c>x-dead-letter-routing-key</c>, <c>x-delivery-limit</c>, ...
    /// </param>
    /// <param name="cancellationToken">Stops waiting for the broker's reply.</param>
    /// <exception cref="AmqpException">The broker refused: 406 for an existing queue with other arguments, 405 for another connection's exclusive queue.</exception>
    public async Task<AmqpQueueState> DeclareQueueAsync(string queue, bool durable = true, bool exclusive = false, bool autoDelete = false, Dictionary<string, object?>? arguments = null, CancellationToken cancellationToken = default)
    {
        var ok = await CallTopologyAsync<QueueDeclare, QueueDeclareOk>(new QueueDeclare(0, queue, false, durable, exclusive, autoDelete, false, arguments), cancellationToken).ConfigureAwait(false);
        return new AmqpQueueState(ok.Queue, ok.MessageCount, ok.ConsumerCount);
    }

    /// <summary>The state of an existing queue (a passive queue.declare: nothing is created).</summary>
    /// <exception cref="AmqpException">404 (<see cref="AmqpExceptionKind.ChannelClosed"/>): there is no such queue.</exception>
    public async Task<AmqpQueueState> DeclareQueuePassiveAsync(string queue, CancellationToken cancellationToken = default)
    {
        var ok = await CallTopologyAsync<QueueDeclare, QueueDeclareOk>(new QueueDeclare(0, queue, true, false, false, false, false, null), cancellationToken).ConfigureAwait(false);
        return new AmqpQueueState(ok.Queue, ok.MessageCount, ok.ConsumerCount);
    }

    /// <summary>Binds <paramref name="queue"/> to <paramref name="exchange"/> with <paramref name="routingKey"/> (queue.bind).</summary>
    /// <exception cref="AmqpException">404: the queue or the exchange does not exist.</exception>
    public Task BindQueueAsync(string queue, string exchange, string routingKey, Dictionary<string, object?>? arguments = null, CancellationToken cancellationToken = default) =>
        CallTopologyAsync<QueueBind, QueueBindOk>(new QueueBind(0, queue, exchange, routingKey, false, arguments), cancellationToken);

    /// <summary>Deletes <paramref name="queue"/> with its messages (queue.delete); the number of messages it held.</summary>
    public async Task<uint> DeleteQueueAsync(string queue, CancellationToken cancellationToken = default) =>
        (await CallTopologyAsync<QueueDelete, QueueDeleteOk>(new QueueDelete(0, queue, false, false, false), cancellationToken).ConfigureAwait(false)).MessageCount;

    // One call at a time (AMQP: one synchronous method per channel) on a channel opened for them; one
    // the broker closed (a refused declare does that) is replaced by the next call.
    private async Task<TReply> CallTopologyAsync<TRequest, TReply>(TRequest request, CancellationToken cancellationToken)
        where TRequest : struct, IAmqpMethod<TRequest>
        where TReply : struct, IAmqpMethod<TReply>
    {
        await _topologyTurn.WaitAsync().ConfigureAwait(false);
        try
        {
            ThrowIfFailed();
            if (_topology is null || _topology.Failure is not null)
            {
                var channel = new TopologyChannel();
                await OpenChannelsAsync([channel], cancellationToken).ConfigureAwait(false);
                _topology = channel;
            }
            try
            {
                return await CallAsync<TRequest, TReply>(_topology, request, cancellationToken).ConfigureAwait(false);
            }
            catch (AmqpException e) when (e.Kind == AmqpExceptionKind.ChannelClosed)
            {
                // Thrown from the call that provoked it, never shared with another, naming the broker.
                throw new AmqpException(Broker, e);
            }
        }
        finally
        {
            _topologyTurn.Release();
        }
    }
}
