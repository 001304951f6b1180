using System.Net.Sockets;
using System.Security.Authentication;
using System.Security.Cryptography.X509Certificates;
using Prewire.Amqp;
using Prewire.Messaging;
using RabbitMQ.Client;
using RabbitMQ.Client.Exceptions;

namespace Prewire.RabbitMQ;

/// <summary>Connecting with RabbitMQ.Client, each failure turned into one line that says why.</summary>
public static class RabbitMqConnector
{
    /// <summary>Opens a connection (over TLS for <c>amqps://</c>, checked as Prewire's own client checks it).</summary>
    /// <remarks>
    /// Fails after <paramref name="timeout"/> (default 10 seconds, as Prewire's AmqpConnectionOptions.HandshakeTimeout)
    /// when the connection is not open by then; automatic recovery is off so a dead broker is reported,
    /// not retried silently.
    /// </remarks>
    /// <exception cref="AmqpException">The broker could not be reached or refused the connection; the message names the broker without credentials.</exception>
    /// <exception cref="ArgumentException">A file <paramref name="tls"/> names cannot be read.</exception>
    public static async Task<IConnection> ConnectAsync(AmqpUri uri, string clientName, CancellationToken cancellationToken, AmqpTlsOptions? tls = null, TimeSpan? timeout = null)
    {
        ArgumentNullException.ThrowIfNull(uri);
        var limit = timeout ?? TimeSpan.FromSeconds(10);
        var factory = new ConnectionFactory
        {
            Uri = uri.Uri,
            ClientProvidedName = clientName,
            AutomaticRecoveryEnabled = false,
            // Its own timers at half the limit, as before the limit could be set: a TCP connect or AMQP step
            // that hangs is told in its words; ours below covers the TLS handshake it does not time.
            RequestedConnectionTimeout = limit / 2,
            HandshakeContinuationTimeout = limit / 2,
        };
        var check = uri.IsTls ? new AmqpTlsCheck(tls ?? new AmqpTlsOptions(), uri.Host) : null;
        if (check is not null)
        {
            factory.Ssl = new SslOption
            {
                Enabled = true,
                ServerName = uri.Host,
                Version = AmqpTlsCheck.Protocols,
                CertificateValidationCallback = check.Validate,
                Certs = check.ClientCertificate is null ? null : new X509CertificateCollection { check.ClientCertificate },
            };
            // The broker takes the user from the certificate, as Prewire's client asks it to.
            if (check.ClientCertificate is not null) factory.AuthMechanisms = [new ExternalMechanismFactory()];
        }
        // RabbitMQ.Client times the TCP connect and the AMQP handshake, not the TLS one: a port that
        // accepts and says nothing would hold it for ever. The whole of it gets the limit, as in ours.
        using var expiry = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken);
        expiry.CancelAfter(limit);
        try
        {
            return await factory.CreateConnectionAsync(expiry.Token).ConfigureAwait(false);
        }
        catch (Exception e) when (e is OperationCanceledException or BrokerUnreachableException && expiry.IsCancellationRequested && !cancellationToken.IsCancellationRequested)
        {
            throw new AmqpException($"cannot reach RabbitMQ at {uri}: {uri} did not complete the {(check is null ? "AMQP" : "TLS")} handshake within {limit.TotalSeconds:0.#} s", e);
        }
        catch (BrokerUnreachableException e) when (check is not null && Find<AuthenticationException>(e) is { } handshake)
        {
            throw new AmqpException($"cannot reach RabbitMQ at {uri}: {check.Describe($"{uri.Host}:{uri.Port}", handshake)}", e);
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

    /// <summary>The broker closed a connection (or its first channel) that was just opened, in the words of <see cref="BrokerSession.Refused"/>.</summary>
    internal static AmqpException Refused(AmqpUri uri, string? queue, OperationInterruptedException e) => e.ShutdownReason is { } reason
        ? BrokerSession.Refused(uri, queue, reason.ReplyCode, reason.ReplyText, e)
        : new AmqpException($"RabbitMQ at {uri} closed the connection: {e.Message}", e);

    private static T? Find<T>(Exception e)
        where T : Exception
    {
        for (Exception? inner = e; inner is not null; inner = inner.InnerException)
        {
            if (inner is T found) return found;
        }
        return null;
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
