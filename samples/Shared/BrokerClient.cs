namespace Prewire.Samples;

/// <summary>The AMQP client an app talks to the broker with (<c>--client</c>).</summary>
public enum BrokerClient
{
    /// <summary>RabbitMQ.Client, through Prewire.RabbitMQ: only in an app built with <c>-p:PrewireAmqpClient=Both</c>.</summary>
    RabbitMQ,

    /// <summary>Prewire's own client, every build's default: zero-copy publishes and deliveries.</summary>
    Prewire,
}
