namespace Prewire.Testing;

/// <summary>The AMQP clients an app is built with (<c>PrewireAmqpClient</c>, samples/Directory.Build.props).</summary>
public enum AmqpClients
{
    /// <summary>Prewire's own client only: the default build.</summary>
    Prewire,

    /// <summary>RabbitMQ.Client beside it (<c>-p:PrewireAmqpClient=Both</c>), for comparison.</summary>
    Both,
}
