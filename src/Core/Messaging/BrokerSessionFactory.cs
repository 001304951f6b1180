using Prewire.Amqp;

namespace Prewire.Messaging;

/// <summary>Opens a <see cref="BrokerSession"/> with one client to one node: connected, with the topology declared.</summary>
/// <exception cref="AmqpException">The node refused, or could not be reached (one line naming it, never the password).</exception>
public delegate Task<BrokerSession> BrokerSessionFactory(BrokerSessionOptions options, AmqpUri uri, CancellationToken cancellationToken);
