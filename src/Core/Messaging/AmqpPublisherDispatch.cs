using System.Runtime.CompilerServices;
using Prewire.Amqp;
using Prewire.Messaging.Internal;
using Prewire.Tasks;

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
    public override string Client => "Prewire";

    /// <summary>
    /// Connects; from then on every message goes through this connection. Connecting again replaces
    /// the connection (after it was lost): publishes still waiting on the old one fail.
    /// </summary>
    /// <exception cref="AmqpException">The broker could not be reached or refused the connection; the message says which and why.</exception>
    public async Task ConnectAsync(AmqpPublisherOptions options, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(options);
        try
        {
            var old = Interlocked.Exchange(ref _publisher, await AmqpPublisher.ConnectAsync(options, cancellationToken).ConfigureAwait(false));
            if (old is not null) await DisposeQuietlyAsync(old).ConfigureAwait(false);
        }
        catch (Exception e) when (e is IOException or AmqpException or ArgumentException)
        {
            throw new AmqpException($"AmqpPublisher cannot connect to {options.Uri}: {e.Message}", e);
        }
    }

    /// <summary>
    /// Publishes on channels of <paramref name="connection"/> from now on (a session's, shared with its
    /// consumer and topology); opening again replaces them (after the connection was lost).
    /// </summary>
    /// <exception cref="AmqpException">The broker refused the channel, or the connection is gone.</exception>
    public async Task OpenAsync(AmqpConnection connection, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(connection);
        try
        {
            var old = Interlocked.Exchange(ref _publisher, await AmqpPublisher.OpenAsync(connection, cancellationToken: cancellationToken).ConfigureAwait(false));
            if (old is not null) await DisposeQuietlyAsync(old).ConfigureAwait(false);
        }
        catch (Exception e) when (e is IOException or ObjectDisposedException)
        {
            throw new AmqpException(AmqpExceptionKind.ConnectionClosed, $"AmqpPublisher cannot open a channel on {connection.Broker}: {e.Message}", e);
        }
    }

    /// <summary>Publishes on channels of <paramref name="connection"/>'s session (<see cref="OpenAsync"/>), opened again on each new session after a reconnection.</summary>
    public override async Task AttachAsync(BrokerConnection connection, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(connection);
        await OpenOnAsync(connection.Session, cancellationToken).ConfigureAwait(false);
        connection.OnReconnected(OpenOnAsync);
    }

    private Task OpenOnAsync(BrokerSession session, CancellationToken cancellationToken) => OpenAsync(AmqpSession.Of(session).Connection, cancellationToken);

    /// <inheritdoc />
    [AsyncMethodBuilder(typeof(PooledValueTaskMethodBuilder))]
    protected override async ValueTask Terminate(DispatchContext context)
    {
        var publisher = Volatile.Read(ref _publisher) ?? throw new InvalidOperationException("Not connected: call ConnectAsync before publishing.");
        // One set of properties per publish in flight, pooled: the content header is written from them
        // before the confirm is awaited, and they go back once it came, so publishing allocates none.
        var publish = ObjectPool<PublishProperties>.TryRent() ?? new PublishProperties();
        try
        {
            var properties = publish.Properties;
            properties.ContentType = ContentTypeOf(context);
            properties.DeliveryMode = PersistentDeliveryMode;
            CopyHeaders(context, properties.Headers!);
            if (context.TryGetMessageId(out var id))
            {
                properties.Headers!.TryAdd(MessageHeaders.MessageId, publish.MessageId(id));
            }
            else
            {
                properties.MessageId = context.MessageId;
                properties.Headers!.TryAdd(MessageHeaders.MessageId, context.MessageId);
            }
            if (context.SentAt is { } sentAt) properties.Headers![MessageHeaders.SentAt] = publish.SentAt(sentAt);
            publish.Telemetry = PublishTelemetry.Start(context, properties.Headers!);
            await publisher.PublishAsync(context.Exchange, context.RoutingKey, properties, context.Body, Mandatory, context.CancellationToken).ConfigureAwait(false);
            publish.Telemetry.Succeeded();
        }
        // A connection replaced while this publish waited on it is as lost as one the broker dropped;
        // each said in the words RabbitMqDispatch uses.
        catch (Exception e) when (AmqpException.IsConnectionLoss(e))
        {
            // The broker named through the field, not the local: a local used here would be kept in the
            // async state machine, 8 more bytes in every publish's box.
            var lost = new AmqpException(AmqpExceptionKind.ConnectionClosed, $"lost the connection to RabbitMQ at {Volatile.Read(ref _publisher)?.Broker}: {e.Message}", e);
            publish.Telemetry.Failed(lost);
            throw lost;
        }
        catch (Exception e)
        {
            publish.Telemetry.Failed(e);
            throw;
        }
        finally
        {
            publish.Clear();
            ObjectPool<PublishProperties>.Return(publish);
        }
    }

    private static async Task DisposeQuietlyAsync(AmqpPublisher lost)
    {
        try
        {
            await lost.DisposeAsync().ConfigureAwait(false);
        }
        catch (Exception e) when (e is IOException or AmqpException or ObjectDisposedException or OperationCanceledException)
        {
            // Lost already: there is nothing left to close politely.
        }
    }

    /// <inheritdoc />
    public override async ValueTask DisposeAsync()
    {
        if (_publisher is not null) await _publisher.DisposeAsync().ConfigureAwait(false);
        await base.DisposeAsync().ConfigureAwait(false);
    }
}
