using Prewire.Amqp;

namespace Prewire.RabbitMQ;

/// <summary>What a <see cref="BrokerSession"/> connects to and declares.</summary>
public sealed class BrokerSessionOptions
{
    /// <summary>The broker. Its password is never logged or put in a message.</summary>
    public required AmqpUri Uri { get; init; }

    /// <summary>The queue the session declares (durable) if it does not exist yet.</summary>
    public required string Queue { get; init; }

    /// <summary>The name the broker shows for the session's connections.</summary>
    /// <remarks>Defaults to <c>prewire</c>.</remarks>
    public string ClientName { get; init; } = "prewire";

    /// <summary>Publisher confirms on the session's channel.</summary>
    /// <remarks>Defaults to <see langword="false"/>.</remarks>
    public bool Confirms { get; init; }
}
