namespace Prewire.Messaging;

/// <summary>A queue of a <see cref="BrokerTopology"/>.</summary>
public sealed class BrokerQueue(string name, Dictionary<string, object?> arguments)
{
    /// <summary>Its name.</summary>
    public string Name { get; } = name;

    /// <summary>Its declare arguments (<c>x-queue-type</c>, <c>x-dead-letter-exchange</c>).</summary>
    public Dictionary<string, object?> Arguments { get; } = arguments;
}
