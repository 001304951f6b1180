namespace Prewire.Pipeline;

/// <summary>What a step does to the flow.</summary>
public enum PipelineStepKind
{
    /// <summary>Keeps the context type.</summary>
    Behavior,

    /// <summary>Changes the context type: the next stage starts after it.</summary>
    Connector,

    /// <summary>Runs another pipeline, then continues with the same context.</summary>
    Fork,

    /// <summary>Ends the pipeline.</summary>
    Terminator,
}
