using Prewire.Amqp;

namespace Prewire.PublishMemory;

/// <summary>Prewire's AmqpPublisher: one channel per connection, so concurrent publishers share it (scenarios B-D) or have their own connection (A).</summary>
internal sealed class PrewireClient : IClient
{
    private AmqpPublisher[] _publishers = [];

    public async Task ConnectAsync(Uri uri, Scenario scenario)
    {
        var options = new AmqpPublisherOptions { Uri = uri, Confirms = scenario.Confirms, ClientName = "prewire-benchmark" };
        var connections = scenario.ConnectionPerPublisher ? scenario.Publishers : 1;
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
