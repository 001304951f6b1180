namespace Prewire.Samples;

/// <summary>The AMQP client an app talks to the broker with (<c>--client</c>).</summary>
public enum BrokerClient
{
    /// <summary>RabbitMQ.Client, through Prewire.RabbitMQ: the default where the app is built with it.</summary>
    RabbitMQ,

    /// <summary>Prewire's own client: zero-copy publishes and deliveries.</summary>
    Prewire,
}
