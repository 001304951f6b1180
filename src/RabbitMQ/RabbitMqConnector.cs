using System.Net.Sockets;
using Prewire.Amqp;
using RabbitMQ.Client;
using RabbitMQ.Client.Exceptions;

namespace Prewire.RabbitMQ;

/// <summary>Connecting with RabbitMQ.Client, each failure turned into one line that says why.</summary>
public static class RabbitMqConnector
{
    /// <summary>Opens a connection.</summary>
    /// <remarks>
    /// Fails after 5 seconds when nothing answers; automatic recovery is off so a dead broker is
    /// reported, not retried silently.
    /// </remarks>
    /// <exception cref="AmqpException">The broker could not be reached or refused the connection; the message names the broker without credentials.</exception>
    public static async Task<IConnection> ConnectAsync(AmqpUri uri, string clientName, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(uri);
        var factory = new ConnectionFactory
        {
            Uri = uri.Uri,
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
            throw new AmqpException($"cannot reach RabbitMQ at {uri}: {Describe(e)}", e);
        }
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
