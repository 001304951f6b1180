namespace Prewire.HttpEndpoint;

/// <summary>The body of a 202: the id the message was published with (its AMQP message-id and <c>prewire.message-id</c>).</summary>
internal readonly record struct AcceptedMessage(string Id);
