using Prewire.Amqp;
using RabbitMQ.Client;
using RabbitMQ.Client.Events;

namespace Prewire.ConsumeMemory;

/// <summary>RabbitMQ.Client 7: an AsyncEventingBasicConsumer on one channel, each delivery acked alone.</summary>
internal sealed class OfficialConsumer : IConsumeClient
{
    public async Task<(long Checksum, long AckFrames)> DrainAsync(AmqpUri uri, string queue, int count)
    {
        var factory = new ConnectionFactory { Uri = uri.Uri, AutomaticRecoveryEnabled = false, ClientProvidedName = "consume-memory-official" };
        await using var connection = await factory.CreateConnectionAsync();
        await using var channel = await connection.CreateChannelAsync();
        await channel.BasicQosAsync(0, 200, false);
        var (seen, checksum) = (0, 0L);
        var done = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        var consumer = new AsyncEventingBasicConsumer(channel);
        consumer.ReceivedAsync += async (_, delivery) =>
        {
            var body = delivery.Body.Span;
            if (!body.IsEmpty) checksum += body[^1];
            await channel.BasicAckAsync(delivery.DeliveryTag, multiple: false);
            if (++seen == count) done.TrySetResult();
        };
        var tag = await channel.BasicConsumeAsync(queue, autoAck: false, consumer);
        await done.Task;
        await channel.BasicCancelAsync(tag);
        // One basic.ack per delivery, as the handler writes them.
        return (checksum, seen);
    }
}
