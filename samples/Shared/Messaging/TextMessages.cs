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

    // Strict: a body that is not UTF-8 is malformed, not text with replacement characters in it.
    private static readonly UTF8Encoding _strictUtf8 = new(encoderShouldEmitUTF8Identifier: false, throwOnInvalidBytes: true);

    /// <summary>Incoming: reads the UTF-8 body into the logical message; another content type or a body that is not UTF-8 is a <see cref="MalformedMessageException"/>.</summary>
    public sealed class Deserialize : StageConnector<IncomingPhysicalContext, IncomingLogicalContext>
    {
        /// <inheritdoc />
        public override Task Invoke(IncomingPhysicalContext context, Func<IncomingLogicalContext, Task> next)
        {
            ArgumentNullException.ThrowIfNull(context);
            ArgumentNullException.ThrowIfNull(next);
            if (context.Headers.TryGetValue(MessageHeaders.ContentType, out var type) && type != ContentType)
                throw new MalformedMessageException($"content type '{type}'; expected '{ContentType}'");
            string text;
            try
            {
                text = _strictUtf8.GetString(context.Body.Span);
            }
            catch (DecoderFallbackException e)
            {
                throw new MalformedMessageException("the body is not valid UTF-8", e);
            }
            return next(new IncomingLogicalContext(context, context.MessageId, context.Headers, text));
        }
    }
}
