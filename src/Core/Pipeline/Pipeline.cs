using System.Text;
using Prewire.Pipeline.Internal;

namespace Prewire.Pipeline;

/// <summary>A built pipeline: invoke it once per message with a root context.</summary>
public sealed class Pipeline<TContext>
    where TContext : class, IBehaviorContext
{
    private readonly Func<TContext, ValueTask> _entry;
    private readonly IReadOnlyList<StepRegistration> _registrations;
    private IReadOnlyList<PipelineStep>? _steps;

    internal Pipeline(Func<TContext, ValueTask> entry, IReadOnlyList<StepRegistration> registrations, string builder)
    {
        _entry = entry;
        _registrations = registrations;
        Builder = builder;
    }

    /// <summary>The steps, in order. Made on first use: building a pipeline does not pay for its description.</summary>
    public IReadOnlyList<PipelineStep> Steps => _steps ??= _registrations.Select(r => r.ToStep()).ToArray();

    /// <summary>How it was built: <c>prewired</c> or <c>expression-tree</c>.</summary>
    public string Builder { get; }

    /// <summary>Runs the pipeline for one message. Await the result once (it may come from a pool).</summary>
    public ValueTask Invoke(TContext context) => _entry(context);

    /// <summary>
    /// The pipeline stage by stage: step id, behavior type and description; forks show the pipeline
    /// they run, indented. For logs and <c>--describe</c> flags.
    /// </summary>
    public string Describe()
    {
        var text = new StringBuilder();
        text.Append("Pipeline<").Append(typeof(TContext).Name).Append("> (").Append(Builder).Append(", ")
            .Append(Steps.Count).Append(Steps.Count == 1 ? " step" : " steps").AppendLine(")");
        PipelineDescription.Append(text, Steps, indent: "");
        return text.ToString();
    }

    /// <inheritdoc />
    public override string ToString() => Describe();
}
