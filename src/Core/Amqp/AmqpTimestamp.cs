namespace Prewire.Amqp;

/// <summary>A field-table timestamp ('T'), or a message's timestamp property: seconds since the Unix epoch.</summary>
public readonly record struct AmqpTimestamp(ulong UnixSeconds);
