using System.Net.Sockets;
using RabbitMQ.Client;
using RabbitMQ.Client.Exceptions;

namespace Prewire.Hosting;

/// <summary>Connecting to RabbitMQ with RabbitMQ.Client, with failures turned into one clear line.</summary>
public static class Broker
{
    /// <summary>
    /// Parses an AMQP URI. Throws <see cref="AppException"/> naming what is wrong; the URI itself is
    /// never echoed, since it may carry a password.
    /// </summary>
    public static Uri ParseUri(string value)
    {
        ArgumentNullException.ThrowIfNull(value);
        if (!Uri.TryCreate(value, UriKind.Absolute, out var uri))
        {
            throw new AppException("invalid broker URI (--uri / RABBITMQ_URI): not an absolute URI; expected amqp://user:password@host:port/vhost");
        }
        if (uri.Scheme is not ("amqp" or "amqps"))
        {
            throw new AppException($"invalid broker URI (--uri / RABBITMQ_URI): scheme '{uri.Scheme}' is not amqp or amqps");
        }
        return uri;
    }

    /// <summary>The URI without its user-info, for logs and messages.</summary>
    public static string Redact(Uri uri)
    {
        ArgumentNullException.ThrowIfNull(uri);
        return new UriBuilder(uri) { UserName = string.Empty, Password = string.Empty }.Uri.ToString();
    }

    /// <summary>Opens a connection, or throws <see cref="AppException"/> saying why it could not.</summary>
    /// <remarks>Fails after 5 seconds when nothing answers; automatic recovery is off so a dead broker is reported, not retried silently.</remarks>
    public static async Task<IConnection> ConnectAsync(Uri uri, string clientName, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(uri);
        var factory = new ConnectionFactory
        {
            Uri = uri,
            ClientProvidedName = clientName,
            AutomaticRecoveryEnabled = false,
            RequestedConnectionTimeout = TimeSpan.FromSeconds(5),
        };
        try
        {
            return await factory.CreateConnectionAsync(cancellationToken).ConfigureAwait(false);
        }
        catch (BrokerUnreachableException e)
        {
            throw new AppException($"cannot reach RabbitMQ at {Redact(uri)}: {Describe(e)}", innerException: e);
        }
    }

    /// <summary>
    /// Connects when a URI was given (<c>--uri</c> / <c>RABBITMQ_URI</c>) and logs where to;
    /// returns <see langword="null"/> when none was.
    /// </summary>
    public static async Task<IConnection?> ConnectIfConfiguredAsync(string? uriText, string clientName, Serilog.ILogger log, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(log);
        if (uriText is null)
        {
            log.Information("No broker URI given (--uri / RABBITMQ_URI): not connecting");
            return null;
        }
        var uri = ParseUri(uriText);
        var connection = await ConnectAsync(uri, clientName, cancellationToken).ConfigureAwait(false);
        log.Information("Connected to {Broker} as {Client}", Redact(uri), clientName);
        return connection;
    }

    /// <summary>
    /// Opens a channel (with publisher confirms when <paramref name="confirms"/>) and declares
    /// <paramref name="queue"/>, durable, if it does not exist yet.
    /// </summary>
    public static async Task<IChannel> OpenChannelAsync(IConnection connection, string queue, bool confirms, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(connection);
        var channel = await connection.CreateChannelAsync(
            new CreateChannelOptions(publisherConfirmationsEnabled: confirms, publisherConfirmationTrackingEnabled: confirms),
            cancellationToken).ConfigureAwait(false);
        await channel.QueueDeclareAsync(queue, durable: true, exclusive: false, autoDelete: false, cancellationToken: cancellationToken).ConfigureAwait(false);
        return channel;
    }

    private static string Describe(Exception e)
    {
        for (var inner = e.InnerException; inner is not null; inner = inner.InnerException)
        {
            switch (inner)
            {
                case AuthenticationFailureException auth:
                    return $"credentials refused ({auth.Message})";
                case SocketException socket:
                    return socket.Message;
                case PossibleAuthenticationFailureException:
                    return "the broker closed the connection during the handshake (wrong credentials or vhost?)";
                case TimeoutException:
                    return "timed out";
            }
        }
        return e.InnerException?.Message ?? e.Message;
    }
}
