using Prewire.Amqp;

namespace Prewire.PublishMemory;

/// <summary>Prewire's AmqpPublisher: one connection per publisher (A), or one connection with a channel per publisher that the publishers share in turn (B-D).</summary>
internal sealed class PrewireClient : IClient
{
    private AmqpPublisher[] _publishers = [];

    public async Task ConnectAsync(AmqpUri uri, Scenario scenario)
    {
        var connections = scenario.ConnectionPerPublisher ? scenario.Publishers : 1;
        var channels = scenario.ConnectionPerPublisher ? 1 : scenario.Publishers;
        var options = new AmqpPublisherOptions { Uri = uri, Confirms = scenario.Confirms, Channels = channels, ClientName = "prewire-benchmark" };
        _publishers = new AmqpPublisher[connections];
        for (var i = 0; i < connections; i++) _publishers[i] = await AmqpPublisher.ConnectAsync(options);
    }

    public ValueTask PublishAsync(int publisher, ReadOnlyMemory<byte> body) =>
        _publishers[publisher % _publishers.Length].PublishAsync("amq.fanout", "", null, body);

    public async Task CloseAsync()
    {
        foreach (var publisher in _publishers) await publisher.DisposeAsync();
    }
}
