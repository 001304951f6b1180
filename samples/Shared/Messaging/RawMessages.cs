using System.Buffers;
using Prewire.Messaging;
using Prewire.Pipeline;
using Prewire.Tasks;

namespace Prewire.Samples.Messaging;

/// <summary>Messages whose body is bytes already in memory (an HTTP request's), sent as they are.</summary>
public static class RawMessages
{
    /// <summary>
    /// A message of <see cref="Type"/>: <see cref="Body"/> in <see cref="ContentType"/>, neither read nor
    /// copied. From a pool (<see cref="Rent"/>), given back by <see cref="Return"/> once sent.
    /// </summary>
    public sealed class Message
    {
        private Message()
        {
        }

        /// <summary>The message type, sent as a header.</summary>
        public string Type { get; private set; } = "";

        /// <summary>The body's media type.</summary>
        public string ContentType { get; private set; } = "";

        /// <summary>The body, as its owner holds it.</summary>
        public ReadOnlySequence<byte> Body { get; private set; }

        /// <summary>A message, from the pool when one is there.</summary>
        public static Message Rent(string type, string contentType, ReadOnlySequence<byte> body)
        {
            var message = ObjectPool<Message>.TryRent() ?? new Message();
            (message.Type, message.ContentType, message.Body) = (type, contentType, body);
            return message;
        }

        /// <summary>Gives the message back to the pool: nothing may read it afterwards.</summary>
        public void Return()
        {
            (Type, ContentType, Body) = ("", "", default);
            ObjectPool<Message>.Return(this);
        }
    }

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
            return next(context.ToPhysical(message.Body));
        }
    }
}
