using System.Buffers;
using System.Text;
using Prewire.Messaging;
using Prewire.Pipeline;

namespace Prewire.Samples.Messaging;

/// <summary>The samples' message format: UTF-8 text.</summary>
public static class TextMessages
{
    /// <summary>The content type written and accepted.</summary>
    public const string ContentType = "text/plain; charset=utf-8";

    /// <summary>A text sent as a body of <paramref name="Size"/> bytes: its UTF-8, then '.' up to the size (never cut).</summary>
    public sealed record Padded(string Text, int Size);

    /// <summary>
    /// Outgoing: writes the logical message (a string, or <see cref="Padded"/> text) as UTF-8, once, into
    /// the message's pooled body buffer; the physical message's body is that buffer, not a copy.
    /// </summary>
    public sealed class Serialize : StageConnector<OutgoingLogicalContext, OutgoingPhysicalContext>
    {
        /// <inheritdoc />
        public override ValueTask Invoke(OutgoingLogicalContext context, Func<OutgoingPhysicalContext, ValueTask> next)
        {
            ArgumentNullException.ThrowIfNull(context);
            ArgumentNullException.ThrowIfNull(next);
            var (text, size) = context.Message switch
            {
                string plain => (plain, 0),
                Padded padded => (padded.Text, padded.Size),
                _ => throw new ArgumentException($"the samples send text; got {context.Message.GetType().Name}", nameof(context)),
            };
            var length = Encoding.UTF8.GetByteCount(text);
            var bodyLength = Math.Max(length, size);
            var buffer = context.RentBodyBuffer(bodyLength);
            Encoding.UTF8.GetBytes(text, buffer);
            buffer.AsSpan(length, bodyLength - length).Fill((byte)'.');
            context.Headers[MessageHeaders.ContentType] = ContentType;
            return next(context.ToPhysical(new ReadOnlySequence<byte>(buffer, 0, bodyLength)));
        }
    }

    // Strict: a body that is not UTF-8 is malformed, not text with replacement characters in it.
    private static readonly UTF8Encoding _strictUtf8 = new(encoderShouldEmitUTF8Identifier: false, throwOnInvalidBytes: true);

    /// <summary>Incoming: reads the UTF-8 body into the logical message; another content type or a body that is not UTF-8 is a <see cref="MalformedMessageException"/>.</summary>
    public sealed class Deserialize : StageConnector<IncomingPhysicalContext, IncomingLogicalContext>
    {
        /// <inheritdoc />
        public override ValueTask Invoke(IncomingPhysicalContext context, Func<IncomingLogicalContext, ValueTask> next)
        {
            ArgumentNullException.ThrowIfNull(context);
            ArgumentNullException.ThrowIfNull(next);
            if (context.Headers.TryGetValue(MessageHeaders.ContentType, out var type) && type != ContentType)
                throw new MalformedMessageException($"content type '{type}'; expected '{ContentType}'");
            string text;
            try
            {
                text = _strictUtf8.GetString(context.Body);
            }
            catch (DecoderFallbackException e)
            {
                throw new MalformedMessageException("the body is not valid UTF-8", e);
            }
            return next(new IncomingLogicalContext(context, context.MessageId, context.Headers, text));
        }
    }
}
