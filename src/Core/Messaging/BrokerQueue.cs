namespace Prewire.Messaging;

/// <summary>A queue of a <see cref="BrokerTopology"/>: its name and declare arguments (<c>x-queue-type</c>, <c>x-dead-letter-exchange</c>).</summary>
public sealed record BrokerQueue(string Name, Dictionary<string, object?> Arguments);
