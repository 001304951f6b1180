namespace Prewire.Amqp.Internal;

/// <summary>How a delivery was settled, as the frame that says it.</summary>
internal enum SettleKind : byte
{
    /// <summary>basic.ack.</summary>
    Ack,

    /// <summary>basic.nack, not requeued.</summary>
    Nack,

    /// <summary>basic.nack, requeued.</summary>
    NackRequeue,

    /// <summary>basic.reject, not requeued.</summary>
    Reject,

    /// <summary>basic.reject, requeued.</summary>
    RejectRequeue,
}
