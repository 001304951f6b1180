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
        catch (OperationInterruptedException e)
        {
            throw Refused(uri, queue: null, e);
        }
    }

    /// <summary>
    /// The broker closed a connection that was just opened, in one line: 530 is its answer to a
    /// virtual host that does not exist or that the user may not use, and it comes when the first
    /// channel opens, not with the connection; 406 to a queue declared with settings other than
    /// those it exists with (a classic queue declared as quorum, say).
    /// </summary>
    internal static AmqpException Refused(AmqpUri uri, string? queue, OperationInterruptedException e) => e.ShutdownReason switch
    {
        { ReplyCode: 530 } reason => new AmqpException($"RabbitMQ at {uri} refused virtual host '{uri.VirtualHost}': {reason.ReplyText}", e),
        { ReplyCode: 406 } reason when queue is not null => new AmqpException(
            $"RabbitMQ at {uri} refused the topology of queue '{queue}', which exists with other settings (delete it, or pick another queue or queue type): {reason.ReplyText}", e),
        { } reason => new AmqpException($"RabbitMQ at {uri} closed the connection: {reason.ReplyText} ({reason.ReplyCode})", e),
        null => new AmqpException($"RabbitMQ at {uri} closed the connection: {e.Message}", e),
    };

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
