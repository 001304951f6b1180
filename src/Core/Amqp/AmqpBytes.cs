namespace Prewire.Amqp;

/// <summary>A field-table byte array ('x'), as RabbitMQ.Client writes binary values; a plain <c>byte[]</c> is a long string ('S').</summary>
public sealed record AmqpBytes(byte[] Bytes);
