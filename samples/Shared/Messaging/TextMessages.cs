using System.Text;
using Prewire.Messaging;
using Prewire.Pipeline;

namespace Prewire.Samples.Messaging;

/// <summary>The samples' message format: UTF-8 text.</summary>
public static class TextMessages
{
    /// <summary>The content type written and accepted.</summary>
    public const string ContentType = "text/plain; charset=utf-8";

    /// <summary>Outgoing: turns the logical message (a string) into UTF-8 bytes.</summary>
    public sealed class Serialize : StageConnector<OutgoingLogicalContext, OutgoingPhysicalContext>
    {
        /// <inheritdoc />
        public override Task Invoke(OutgoingLogicalContext context, Func<OutgoingPhysicalContext, Task> next)
        {
            ArgumentNullException.ThrowIfNull(context);
            ArgumentNullException.ThrowIfNull(next);
            if (context.Message is not string text)
                throw new ArgumentException($"the samples send text; got {context.Message.GetType().Name}", nameof(context));
            return next(new OutgoingPhysicalContext(context, context.MessageId, context.Headers, Encoding.UTF8.GetBytes(text)));
        }
    }

    /// <summary>Incoming: reads the UTF-8 body into the logical message; rejects other content types.</summary>
    public sealed class Deserialize : StageConnector<IncomingPhysicalContext, IncomingLogicalContext>
    {
        /// <inheritdoc />
        public override Task Invoke(IncomingPhysicalContext context, Func<IncomingLogicalContext, Task> next)
        {
            ArgumentNullException.ThrowIfNull(context);
            ArgumentNullException.ThrowIfNull(next);
            if (context.Headers.TryGetValue(MessageHeaders.ContentType, out var type) && type != ContentType)
                throw new InvalidDataException($"message {context.MessageId} has content type '{type}'; expected '{ContentType}'");
            return next(new IncomingLogicalContext(context, context.MessageId, context.Headers, Encoding.UTF8.GetString(context.Body.Span)));
        }
    }
}
