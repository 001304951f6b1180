using System.Buffers;
using Prewire.Pipeline;

namespace Prewire.Messaging;

/// <summary>A message as the transport delivered it. The body is only valid while the pipeline runs.</summary>
public sealed class TransportReceiveContext(string messageId, IReadOnlyDictionary<string, string> headers, ReadOnlySequence<byte> body, CancellationToken cancellationToken = default)
    : BehaviorContext(cancellationToken)
{
    /// <summary>The transport's message id.</summary>
    public string MessageId { get; } = messageId;

    /// <summary>The transport headers.</summary>
    public IReadOnlyDictionary<string, string> Headers { get; } = headers;

    /// <summary>The raw body, borrowed from the transport: copy what must outlive the pipeline.</summary>
    public ReadOnlySequence<byte> Body { get; } = body;

    /// <summary>What the pipeline made of the delivery, for the transport's counts; set by the receive stage.</summary>
    /// <remarks>Defaults to <see cref="ReceiveOutcome.Handled"/>.</remarks>
    public ReceiveOutcome Outcome { get; set; }
}
