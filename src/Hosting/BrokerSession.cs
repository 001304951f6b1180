using RabbitMQ.Client;

namespace Prewire.Hosting;

/// <summary>
/// A connection and one channel on a declared queue, or nothing when no broker URI was given.
/// Disposing closes both.
/// </summary>
public sealed class BrokerSession : IAsyncDisposable
{
    private BrokerSession(Uri? uri, string clientName, IConnection? connection, IChannel? channel)
    {
        Uri = uri;
        ClientName = clientName;
        Connection = connection;
        Channel = channel;
    }

    /// <summary>The broker's URI (with its credentials: never log it unredacted), when one was given.</summary>
    public Uri? Uri { get; }

    /// <summary>The name the session's connections give the broker.</summary>
    public string ClientName { get; }

    /// <summary>The connection, when a URI was given.</summary>
    public IConnection? Connection { get; }

    /// <summary>The channel, when a URI was given.</summary>
    public IChannel? Channel { get; }

    /// <summary>
    /// Connects when <paramref name="uriText"/> is set and opens a channel on <paramref name="queue"/>
    /// (declared if missing; with publisher confirms when <paramref name="confirms"/>). Without a URI,
    /// returns an empty session, or fails with a usage error when <paramref name="neededBy"/> names a
    /// flag that needs the broker.
    /// </summary>
    public static async Task<BrokerSession> OpenAsync(string? uriText, string queue, string clientName, bool confirms, string? neededBy, Serilog.ILogger log, CancellationToken cancellationToken)
    {
        var connection = await Broker.ConnectIfConfiguredAsync(uriText, clientName, log, cancellationToken).ConfigureAwait(false);
        if (connection is null)
        {
            if (neededBy is not null) throw new AppException($"{neededBy} needs a broker: give --uri or RABBITMQ_URI", ExitCodes.Usage);
            return new BrokerSession(null, clientName, null, null);
        }
        try
        {
            return new BrokerSession(Broker.ParseUri(uriText!), clientName, connection, await Broker.OpenChannelAsync(connection, queue, confirms, cancellationToken).ConfigureAwait(false));
        }
        catch
        {
            await connection.DisposeAsync().ConfigureAwait(false);
            throw;
        }
    }

    /// <inheritdoc />
    public async ValueTask DisposeAsync()
    {
        if (Channel is not null) await Channel.DisposeAsync().ConfigureAwait(false);
        if (Connection is not null) await Connection.DisposeAsync().ConfigureAwait(false);
    }
}
