using Prewire.Amqp;
namespace Prewire.PublishMemory;

internal sealed record Scenario(string Name, int Publishers, int MessagesPerPublisher, int BodySize, bool Confirms, bool ConnectionPerPublisher)
{
    public static Scenario Named(string name) => name switch
    {
        "A" => new("A", 16, 100, 1 << 20, Confirms: false, ConnectionPerPublisher: true),
        "B" => new("B", 16, 400, 1 << 20, Confirms: true, ConnectionPerPublisher: false),
        "C" => new("C", 16, 5_000, 256, Confirms: true, ConnectionPerPublisher: false),
        "D" => new("D", 16, 5_000, 256, Confirms: false, ConnectionPerPublisher: false),
        _ => throw new ArgumentException($"no scenario {name}", nameof(name)),
    };
}

internal interface IClient
{
    Task ConnectAsync(AmqpUri uri, Scenario scenario);

    ValueTask PublishAsync(int publisher, ReadOnlyMemory<byte> body);

    Task CloseAsync();
}
