using System.Buffers;
using System.Globalization;
using System.Text;
using System.Text.Unicode;
using Prewire.Messaging;
using Prewire.Pipeline;

namespace Prewire.Samples.Messaging;

/// <summary>The samples' message format: UTF-8 text.</summary>
public static class TextMessages
{
    /// <summary>The content type written and accepted.</summary>
    public const string ContentType = "text/plain; charset=utf-8";

    /// <summary>
    /// "message <see cref="Index"/> of <see cref="Count"/>" as a body of <see cref="Size"/> bytes (its
    /// UTF-8, then '.' up to the size, never cut), written into the body without a string: one object a
    /// publishing loop reuses for each of its messages (it awaits each one before setting the next).
    /// </summary>
    public sealed class Numbered
    {
        /// <summary>The message's number, from 1.</summary>
        public int Index { get; set; }

        /// <summary>How many there are.</summary>
        public int Count { get; set; }

        /// <summary>Body bytes at least (0: the text alone).</summary>
        public int Size { get; set; }

        /// <inheritdoc />
        public override string ToString() => $"message {Index} of {Count}";
    }

    /// <summary>
    /// Outgoing: writes the logical message (a string, or a <see cref="Numbered"/> text) as UTF-8, once, into
    /// the message's pooled body buffer; the physical message's body is that buffer, not a copy.
    /// </summary>
    public sealed class Serialize : StageConnector<OutgoingLogicalContext, OutgoingPhysicalContext>
    {
        /// <inheritdoc />
        public override ValueTask Invoke(OutgoingLogicalContext context, Func<OutgoingPhysicalContext, ValueTask> next)
        {
            ArgumentNullException.ThrowIfNull(context);
            ArgumentNullException.ThrowIfNull(next);
            byte[] buffer;
            int length, bodyLength;
            if (context.Message is Numbered numbered)
            {
                // "message " + 10 digits + " of " + 10 digits at most.
                bodyLength = Math.Max(32, numbered.Size);
                buffer = context.RentBodyBuffer(bodyLength);
                Utf8.TryWrite(buffer, CultureInfo.InvariantCulture, $"message {numbered.Index} of {numbered.Count}", out length);
                bodyLength = Math.Max(length, numbered.Size);
            }
            else
            {
                var text = context.Message as string ?? throw new ArgumentException($"the samples send text; got {context.Message.GetType().Name}", nameof(context));
                length = bodyLength = Encoding.UTF8.GetByteCount(text);
                buffer = context.RentBodyBuffer(bodyLength);
                Encoding.UTF8.GetBytes(text, buffer);
            }
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
            return next(context.ToLogical(text));
        }
    }
}
