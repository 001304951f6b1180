using System.Buffers;
using Prewire.Messaging;
using Prewire.Pipeline;

namespace Prewire.Samples.Messaging;

/// <summary>Messages whose body is bytes already in memory (an HTTP request's), sent as they are.</summary>
public static class RawMessages
{
    /// <summary>A message of <paramref name="Type"/>: <paramref name="Body"/> in <paramref name="ContentType"/>, neither read nor copied.</summary>
    public sealed record Message(string Type, string ContentType, ReadOnlySequence<byte> Body);

    /// <summary>Outgoing: the physical message's body is the logical message's, the same memory; its type and content type become headers.</summary>
    public sealed class Pass : StageConnector<OutgoingLogicalContext, OutgoingPhysicalContext>
    {
        /// <inheritdoc />
        public override ValueTask Invoke(OutgoingLogicalContext context, Func<OutgoingPhysicalContext, ValueTask> next)
        {
            ArgumentNullException.ThrowIfNull(context);
            ArgumentNullException.ThrowIfNull(next);
            if (context.Message is not Message message) throw new ArgumentException($"expected a {nameof(RawMessages)}.{nameof(Message)}; got {context.Message.GetType().Name}", nameof(context));
            context.Headers[MessageHeaders.MessageType] = message.Type;
            context.Headers[MessageHeaders.ContentType] = message.ContentType;
            return next(new OutgoingPhysicalContext(context, context.MessageId, context.Headers, message.Body));
        }
    }
}
