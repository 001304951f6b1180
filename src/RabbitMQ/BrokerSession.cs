using RabbitMQ.Client;
using RabbitMQ.Client.Exceptions;

namespace Prewire.RabbitMQ;

/// <summary>A RabbitMQ.Client connection and one channel on a declared queue. Disposing closes both.</summary>
public sealed class BrokerSession : IAsyncDisposable
{
    private BrokerSession(BrokerSessionOptions options, IConnection connection, IChannel channel)
    {
        Options = options;
        Connection = connection;
        Channel = channel;
    }

    /// <summary>What the session was opened with.</summary>
    public BrokerSessionOptions Options { get; }

    /// <summary>The connection.</summary>
    public IConnection Connection { get; }

    /// <summary>The channel: publisher confirms on when <see cref="BrokerSessionOptions.Confirms"/>.</summary>
    public IChannel Channel { get; }

    /// <summary>Connects, opens the channel and declares the queue (durable) if it does not exist yet.</summary>
    /// <exception cref="Prewire.Amqp.AmqpException">The broker could not be reached or refused the connection.</exception>
    public static async Task<BrokerSession> OpenAsync(BrokerSessionOptions options, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(options);
        var connection = await RabbitMqConnector.ConnectAsync(options.Uri, options.ClientName, cancellationToken).ConfigureAwait(false);
        try
        {
            var channel = await connection.CreateChannelAsync(
                new CreateChannelOptions(publisherConfirmationsEnabled: options.Confirms, publisherConfirmationTrackingEnabled: options.Confirms),
                cancellationToken).ConfigureAwait(false);
            await channel.QueueDeclareAsync(options.Queue, durable: true, exclusive: false, autoDelete: false, cancellationToken: cancellationToken).ConfigureAwait(false);
            return new BrokerSession(options, connection, channel);
        }
        catch (Exception e)
        {
            await connection.DisposeAsync().ConfigureAwait(false);
            if (e is OperationInterruptedException interrupted) throw RabbitMqConnector.Refused(options.Uri, interrupted);
            throw;
        }
    }

    /// <inheritdoc />
    public async ValueTask DisposeAsync()
    {
        await Channel.DisposeAsync().ConfigureAwait(false);
        await Connection.DisposeAsync().ConfigureAwait(false);
    }
}
