using Prewire.Pipeline;

namespace Prewire.Hosting.Messaging;

/// <summary>
/// The outgoing pipeline's terminator: RabbitMQ.Client (the default) or Prewire's zero-copy
/// <see cref="Prewire.Amqp.AmqpPublisher"/> (opt-in). Built before any connection exists, so start-up
/// can validate and describe the pipeline without a broker; attached once the session is open.
/// </summary>
public abstract class BrokerDispatch : PipelineTerminator<DispatchContext>, IAsyncDisposable
{
    /// <summary>The dispatch for the chosen client.</summary>
    public static BrokerDispatch Create(bool amqpPublisher) => amqpPublisher ? new AmqpPublisherDispatch() : new RabbitMqDispatch();

    /// <summary>The client that publishes, for logs.</summary>
    public abstract string Client { get; }

    /// <summary>Publishes through <paramref name="session"/>'s broker from now on.</summary>
    public abstract Task AttachAsync(BrokerSession session, CancellationToken cancellationToken);

    /// <inheritdoc />
    public virtual ValueTask DisposeAsync()
    {
        GC.SuppressFinalize(this);
        return default;
    }
}
