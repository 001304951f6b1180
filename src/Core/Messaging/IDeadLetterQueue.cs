namespace Prewire.Messaging;

/// <summary>Where a delivery goes that must not be handled again: the transport's dead-letter queue.</summary>
public interface IDeadLetterQueue
{
    /// <summary>
    /// Stores <paramref name="message"/> with <paramref name="failure"/> as its reason and completes once
    /// the broker has it, so the original can then be acknowledged without losing it.
    /// </summary>
    /// <param name="message">The delivery, body and headers as received.</param>
    /// <param name="failure">Why: its type and message travel as headers.</param>
    /// <param name="attempts">How many times the handler ran (0 for a malformed message).</param>
    Task SendAsync(TransportReceiveContext message, Exception failure, int attempts);
}
