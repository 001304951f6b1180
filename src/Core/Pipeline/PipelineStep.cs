namespace Prewire.Pipeline;

/// <summary>One registered step, as a built pipeline describes it.</summary>
/// <param name="Id">The step id it was registered under.</param>
/// <param name="Kind">Behavior, connector, fork or terminator.</param>
/// <param name="BehaviorType">The behavior's type.</param>
/// <param name="InputType">The context type it receives.</param>
/// <param name="OutputType">The context type it continues with.</param>
/// <param name="Description">What it does, in a few words.</param>
public sealed record PipelineStep(string Id, PipelineStepKind Kind, Type BehaviorType, Type InputType, Type OutputType, string Description)
{
    /// <summary>For a fork, the steps of the pipeline it runs; otherwise empty.</summary>
    public IReadOnlyList<PipelineStep> ForkSteps { get; init; } = [];
}
