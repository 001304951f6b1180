namespace Prewire.Messaging;

/// <summary>An exchange of a <see cref="BrokerTopology"/>.</summary>
/// <remarks>A class, not a record: a record's equality and printing members are type data every NativeAOT app rehydrates at start-up.</remarks>
public sealed class BrokerExchange(string name, string type)
{
    /// <summary>Its name.</summary>
    public string Name { get; } = name;

    /// <summary>Its AMQP type: <c>fanout</c> or <c>direct</c>.</summary>
    public string Type { get; } = type;
}
