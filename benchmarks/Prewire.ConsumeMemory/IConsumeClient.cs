using Prewire.Amqp;

namespace Prewire.ConsumeMemory;

/// <summary>One client draining a queue: connect, consume with prefetch 200, read each body, ack it, close.</summary>
internal interface IConsumeClient
{
    /// <summary>Takes <paramref name="count"/> messages; returns the sum of their last bytes (so each body is read) and the ack frames written.</summary>
    Task<(long Checksum, long AckFrames)> DrainAsync(AmqpUri uri, string queue, int count);
}
