namespace Prewire.Amqp;

/// <summary>A field-table decimal ('D'): <c>Unscaled / 10^Scale</c>.</summary>
public readonly record struct AmqpDecimal(byte Scale, int Unscaled);
