namespace Prewire.Messaging;

/// <summary>What became of a delivery once its pipeline completed; the transport acknowledges all three.</summary>
public enum ReceiveOutcome
{
    /// <summary>The handler completed.</summary>
    Handled,

    /// <summary>A message with this id was handled recently: the handler did not run again.</summary>
    Duplicate,

    /// <summary>The message was moved to the dead-letter queue (malformed, or its handler kept failing).</summary>
    DeadLettered,
}
