using System.CommandLine;
using Prewire.Amqp;
using Prewire.Messaging;
using Serilog;

namespace Prewire.Samples;

/// <summary>
/// The broker options the apps share, each falling back to an environment variable: the nodes
/// (<c>--uri</c>, repeated or comma-separated), the queue, its type, the exchange and routing key
/// messages travel by, and the client (<c>--client</c>). Made by <see cref="AppCommand.AddBroker"/>.
/// </summary>
public sealed class BrokerOptions
{
    private readonly Option<string[]> _uri;
    private readonly Option<string?> _queue;
    private readonly Option<BrokerQueueType> _queueType;
    private readonly Option<string?> _exchange;
    private readonly Option<string?> _routingKey;
    private readonly Option<string> _client;
    private readonly Option<bool> _amqpPublisher;
    private readonly Option<string?> _caFile;
    private readonly Option<string?> _clientCertificate;
    private readonly Option<string?> _clientKey;
    private readonly Option<TimeSpan> _connectTimeout;

    internal BrokerOptions(AppCommand app, string queueDescription)
    {
        _uri = new Option<string[]>("--uri")
        {
            Description = "AMQP URI of a RabbitMQ node, e.g. amqp://guest:guest@127.0.0.1:5672/; repeat it or separate with commas for a cluster's nodes. Without it the app does not connect. Env: RABBITMQ_URI.",
            Arity = ArgumentArity.OneOrMore,
            DefaultValueFactory = _ => Environment.GetEnvironmentVariable("RABBITMQ_URI") is { Length: > 0 } given ? [given] : [],
        };
        app.Add(_uri);
        _queue = app.AddOption("--queue", queueDescription, "PREWIRE_QUEUE", "prewire.demo");
        // Enum.TryParse would take "1" too: only the names.
        _queueType = app.AddParsed("--queue-type", "quorum (replicated; the default) or classic.", "PREWIRE_QUEUE_TYPE", BrokerQueueType.Quorum, "quorum or classic",
            text => (Enum.TryParse<BrokerQueueType>(text, ignoreCase: true, out var type) && !char.IsDigit(text[0]), type));
        _exchange = app.AddOption("--exchange", "Exchange messages are published to, declared (direct) and bound to the queue; the default exchange when not given.", "PREWIRE_EXCHANGE");
        _routingKey = app.AddOption("--routing-key", "Routing key messages are published with and the queue is bound with; the queue's name when not given.", "PREWIRE_ROUTING_KEY");
        _client = app.AddParsed("--client", BrokerClients.HasRabbitMQ
                ? "AMQP client: prewire (Prewire's own, zero-copy; the default) or rabbitmq (RabbitMQ.Client)."
                : $"AMQP client: prewire (Prewire's own, zero-copy; rabbitmq needs an app built with {BrokerClients.BothClientsProperty}).",
            "PREWIRE_CLIENT", "prewire", "prewire or rabbitmq", ParseClient);
        _amqpPublisher = app.AddFlag("--amqp-publisher", "Same as --client prewire (the name it had when only publishes were Prewire's and RabbitMQ.Client was the default).");
        _caFile = app.AddOption("--ca-file", "For amqps:// nodes: a PEM file of the certificate authorities to trust instead of the system's store.", "PREWIRE_CA_FILE");
        _clientCertificate = app.AddOption("--client-cert", "For amqps:// nodes: a PEM client certificate to show the broker; it then authenticates by EXTERNAL (the certificate's name is the user), not the URI's password.", "PREWIRE_CLIENT_CERT");
        _clientKey = app.AddOption("--client-key", "The client certificate's PEM private key, unencrypted, when it is not in the --client-cert file.", "PREWIRE_CLIENT_KEY");
        _connectTimeout = app.AddParsed("--connect-timeout", "Seconds a connection may take to open (TCP, TLS and the AMQP handshake); 10 when not given.", "PREWIRE_CONNECT_TIMEOUT",
            TimeSpan.FromSeconds(10), "a number of seconds above 0 and at most 86400", ParseSeconds);
    }

    /// <summary>The client asked for (<c>--client</c>, <c>PREWIRE_CLIENT</c>, <c>--amqp-publisher</c>).</summary>
    /// <exception cref="AppException">RabbitMQ.Client was asked for and this build does not hold it (a usage error).</exception>
    public BrokerClient Client(ParseResult parsed)
    {
        ArgumentNullException.ThrowIfNull(parsed);
        var name = parsed.GetValue(_amqpPublisher) ? "prewire" : parsed.GetValue(_client) ?? "prewire";
        return BrokerClients.Named(name)
            ?? throw new AppException($"--client {name}: this build has no RabbitMQ.Client (build the app with {BrokerClients.BothClientsProperty} for it); use --client prewire", ExitCodes.Usage);
    }

    // Names only ("1" is not a client); rabbitmq parses in every build, so the refusal can say why.
    private static (bool, string) ParseClient(string text)
    {
        var name = text.ToLowerInvariant();
        return (name is "prewire" or "rabbitmq", name);
    }

    // Up to a day: more is a typo, not a slow node.
    private static (bool, TimeSpan) ParseSeconds(string text) =>
        double.TryParse(text, System.Globalization.NumberStyles.AllowDecimalPoint, System.Globalization.CultureInfo.InvariantCulture, out var seconds) && seconds is > 0 and <= 86_400
            ? (true, TimeSpan.FromSeconds(seconds))
            : (false, default);

    /// <summary>The topology, and the nodes given (none when the app is not to connect).</summary>
    /// <param name="parsed">The command line.</param>
    /// <param name="clientName">The name the broker shows for the connections.</param>
    /// <param name="confirms">Publisher confirms on the session's channel.</param>
    /// <param name="consumerConcurrency">Deliveries handled at once by a consumer on the session's channel.</param>
    public BrokerSessionOptions Session(ParseResult parsed, string clientName, bool confirms, int consumerConcurrency = 1)
    {
        ArgumentNullException.ThrowIfNull(parsed);
        var endpoints = new List<AmqpUri>();
        var given = parsed.GetValue(_uri)!;
        // An empty --uri is a mistake to say, not "no broker": that is leaving the option out.
        if (given.Length > 0 && given.All(string.IsNullOrWhiteSpace)) throw new AppException("invalid broker URI (--uri / RABBITMQ_URI): empty");
        foreach (var text in given.SelectMany(u => u.Split(',', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries)))
        {
            // Never echoes the text: it may hold a password.
            endpoints.Add(AmqpUri.TryParse(text, out var uri, out var error) ? uri
                : throw new AppException($"invalid broker URI (--uri / RABBITMQ_URI){(endpoints.Count > 0 ? $", number {endpoints.Count + 1}" : "")}: {error}"));
        }
        var queue = parsed.GetValue(_queue)!;
        var tls = new AmqpTlsOptions { CaFile = parsed.GetValue(_caFile), ClientCertificateFile = parsed.GetValue(_clientCertificate), ClientKeyFile = parsed.GetValue(_clientKey) };
        try
        {
            tls.Validate();
        }
        catch (ArgumentException e)
        {
            throw new AppException($"TLS (--ca-file, --client-cert, --client-key): {e.Message}", ExitCodes.Usage);
        }
        return new BrokerSessionOptions
        {
            Endpoints = endpoints,
            Queue = queue,
            QueueType = parsed.GetValue(_queueType),
            Exchange = parsed.GetValue(_exchange) ?? "",
            RoutingKey = parsed.GetValue(_routingKey) ?? queue,
            ClientName = clientName,
            Confirms = confirms,
            ConsumerConcurrency = (ushort)Math.Clamp(consumerConcurrency, 1, ushort.MaxValue),
            Tls = tls,
            ConnectTimeout = parsed.GetValue(_connectTimeout),
        };
    }

    /// <summary>
    /// <paramref name="options"/> when they name a node; else <see langword="null"/> (logged: the app
    /// does not connect), or a usage error when <paramref name="neededBy"/> names a flag that needs a broker.
    /// </summary>
    public static BrokerSessionOptions? Connecting(BrokerSessionOptions options, ILogger log, string? neededBy)
    {
        ArgumentNullException.ThrowIfNull(options);
        ArgumentNullException.ThrowIfNull(log);
        if (options.Endpoints.Count > 0) return options;
        if (neededBy is not null) throw new AppException($"{neededBy} needs a broker: give --uri or RABBITMQ_URI", ExitCodes.Usage);
        log.Information("No broker URI given (--uri / RABBITMQ_URI): not connecting");
        return null;
    }

    /// <summary>
    /// Connects with <paramref name="client"/> (each node once; a broker that is not there at start is
    /// an error at once) and logs it, and every later loss, retry and reconnection.
    /// </summary>
    public static async Task<BrokerConnection> ConnectAsync(BrokerSessionOptions options, BrokerClient client, ILogger log, CancellationToken cancellationToken, ReconnectPolicy? policy = null)
    {
        ArgumentNullException.ThrowIfNull(log);
        var connection = await BrokerConnection.OpenAsync(options, client.OpenSessionAsync, policy ?? new ReconnectPolicy(), cancellationToken).ConfigureAwait(false);
        log.Information("Connected to {Broker} as {Client}", connection.Session.Uri, options.ClientName);
        connection.RetryingAfter = (e, delay) => log.Warning("Could not reconnect ({Error}); trying again in {Delay:0} ms", e.Message, delay.TotalMilliseconds);
        connection.Reconnected = session => log.Information("Reconnected to {Broker}", session.Uri);
        return connection;
    }
}
