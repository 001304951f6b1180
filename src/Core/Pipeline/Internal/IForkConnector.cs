namespace Prewire.Pipeline.Internal;

/// <summary>Lets a description show the pipeline a fork runs.</summary>
internal interface IForkConnector
{
    IReadOnlyList<PipelineStep> ForkSteps { get; }
}
