using Prewire.Pipeline;

namespace Prewire.Messaging;

/// <summary>Makes a client's receiver: <paramref name="connection"/>'s deliveries through <paramref name="pipeline"/>; <paramref name="rejected"/> hears of each message rejected.</summary>
public delegate BrokerReceiver BrokerReceiverFactory(BrokerConnection connection, Pipeline<TransportReceiveContext> pipeline, Action<string, Exception> rejected);
