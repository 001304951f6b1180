using Prewire.Amqp;

namespace Prewire.ConsumeMemory;

/// <summary>Prewire's AmqpConsumer: the body read where the socket put it, acks coalesced (or, to measure what that saves, not).</summary>
internal sealed class PrewireConsumer(bool coalesceAcks) : IConsumeClient
{
    public async Task<(long Checksum, long AckFrames)> DrainAsync(AmqpUri uri, string queue, int count)
    {
        await using var connection = await AmqpConnection.ConnectAsync(new AmqpConnectionOptions { Uri = uri, ClientName = "consume-memory-prewire" });
        var (seen, checksum) = (0, 0L);
        var done = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        var consumer = await AmqpConsumer.StartAsync(connection, new AmqpConsumerOptions { Queue = queue, Prefetch = 200, CoalesceAcks = coalesceAcks }, delivery =>
        {
            var body = delivery.Body;
            if (!body.IsEmpty) checksum += body.Slice(body.Length - 1).FirstSpan[0];
            if (++seen == count) done.TrySetResult();
            return ValueTask.CompletedTask;
        });
        await done.Task;
        await consumer.StopAsync(TimeSpan.FromSeconds(5));
        return (checksum, consumer.SettlementFrames);
    }
}
