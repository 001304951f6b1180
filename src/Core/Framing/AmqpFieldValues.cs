namespace Prewire.Framing;

/// <summary>A field-table decimal ('D'): <c>Unscaled / 10^Scale</c>.</summary>
public readonly record struct AmqpDecimal(byte Scale, int Unscaled);

/// <summary>A field-table timestamp ('T'): seconds since the Unix epoch.</summary>
public readonly record struct AmqpTimestamp(ulong UnixSeconds);

/// <summary>A field-table byte array ('x'), as RabbitMQ.Client writes binary values; a plain <c>byte[]</c> is a long string ('S').</summary>
public sealed record AmqpBytes(byte[] Bytes);
