using RabbitMQ.Client;

namespace Prewire.Amqp;

/// <summary>RabbitMQ.Client against the test broker, to check what our publisher sent.</summary>
internal static class OfficialClient
{
    public static Task<IConnection> ConnectAsync() =>
        new ConnectionFactory { Uri = TestBroker.Uri, AutomaticRecoveryEnabled = false }.CreateConnectionAsync(TestContext.Current.CancellationToken);
}
