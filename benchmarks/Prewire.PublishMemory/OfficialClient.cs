using Prewire.Amqp;
using RabbitMQ.Client;

namespace Prewire.PublishMemory;

/// <summary>RabbitMQ.Client 7: a channel per publisher (on its own connection in scenario A).</summary>
internal sealed class OfficialClient : IClient
{
    private readonly List<IConnection> _connections = [];
    private IChannel[] _channels = [];

    public async Task ConnectAsync(AmqpUri uri, Scenario scenario)
    {
        var factory = new ConnectionFactory { Uri = uri.Uri, AutomaticRecoveryEnabled = false };
        _channels = new IChannel[scenario.Publishers];
        IConnection? shared = null;
        for (var i = 0; i < scenario.Publishers; i++)
        {
            var connection = scenario.ConnectionPerPublisher ? await factory.CreateConnectionAsync() : shared ??= await factory.CreateConnectionAsync();
            if (!_connections.Contains(connection)) _connections.Add(connection);
            _channels[i] = await connection.CreateChannelAsync(new CreateChannelOptions(scenario.Confirms, scenario.Confirms));
        }
    }

    public ValueTask PublishAsync(int publisher, ReadOnlyMemory<byte> body) =>
        _channels[publisher].BasicPublishAsync("amq.fanout", "", body);

    public async Task CloseAsync()
    {
        foreach (var channel in _channels) await channel.CloseAsync();
        foreach (var connection in _connections) await connection.CloseAsync();
    }
}
