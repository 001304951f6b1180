using Prewire.Amqp;

namespace Prewire.ConsumeMemory;

/// <summary>Fills the queue with Prewire's publisher, 16 in flight, so the drain that follows starts from a full classic queue.</summary>
internal static class Fill
{
    public static async Task RunAsync(AmqpUri uri, string queue, int size, int count)
    {
        await using var connection = await AmqpConnection.ConnectAsync(new AmqpConnectionOptions { Uri = uri, ClientName = "consume-memory-fill" });
        await connection.DeclareQueueAsync(queue, arguments: new() { ["x-queue-type"] = "classic" });
        await using var publisher = await AmqpPublisher.OpenAsync(connection, channels: 4);
        var body = new byte[size];
        Random.Shared.NextBytes(body);
        var next = -1;
        await Task.WhenAll(Enumerable.Range(0, 16).Select(_ => Task.Run(async () =>
        {
            while (Interlocked.Increment(ref next) < count) await publisher.PublishAsync("", queue, null, body);
        })));
    }
}
