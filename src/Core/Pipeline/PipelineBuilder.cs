using Prewire.Pipeline.Internal;

namespace Prewire.Pipeline;

/// <summary>
/// Registers the steps of a pipeline by id and builds it. Registration never throws for an ordering
/// mistake; <see cref="Build{TContext}"/> validates everything at once and throws
/// <see cref="PipelineValidationException"/> listing each problem by step id.
/// </summary>
/// <remarks>
/// <see cref="Build{TContext}"/> composes the steps once, in reverse, into a chain of sealed generic
/// invoker nodes whose <c>next</c> delegates are bound at build time: no expression trees, no
/// reflection, no runtime generic instantiation, so it is NativeAOT-safe and an invocation allocates
/// nothing. A builder can be built more than once; each build is independent.
/// </remarks>
public sealed class PipelineBuilder
{
    private readonly List<StepRegistration> _steps = [];
    private readonly List<string> _problems = [];

    /// <summary>Appends a step.</summary>
    /// <param name="stepId">Unique id, used by <see cref="Replace"/>, <see cref="InsertBefore"/>, <see cref="InsertAfter"/> and in descriptions.</param>
    /// <param name="behavior">The behavior, connector, fork or terminator.</param>
    /// <param name="description">What the step does, in a few words.</param>
    public PipelineBuilder Register<TIn, TOut>(string stepId, IBehavior<TIn, TOut> behavior, string description)
        where TIn : class, IBehaviorContext
        where TOut : class, IBehaviorContext
    {
        _steps.Add(Create(stepId, behavior, description));
        return this;
    }

    /// <summary>Replaces the behavior of an existing step, keeping its position and id.</summary>
    public PipelineBuilder Replace<TIn, TOut>(string stepId, IBehavior<TIn, TOut> behavior, string? description = null)
        where TIn : class, IBehaviorContext
        where TOut : class, IBehaviorContext
    {
        var index = IndexOf(stepId, "replace");
        if (index >= 0) _steps[index] = Create(stepId, behavior, description ?? _steps[index].Description);
        return this;
    }

    /// <summary>Inserts a step right before the step <paramref name="existingStepId"/>.</summary>
    public PipelineBuilder InsertBefore<TIn, TOut>(string existingStepId, string stepId, IBehavior<TIn, TOut> behavior, string description)
        where TIn : class, IBehaviorContext
        where TOut : class, IBehaviorContext
    {
        var index = IndexOf(existingStepId, $"insert '{stepId}' before");
        if (index >= 0) _steps.Insert(index, Create(stepId, behavior, description));
        return this;
    }

    /// <summary>Inserts a step right after the step <paramref name="existingStepId"/>.</summary>
    public PipelineBuilder InsertAfter<TIn, TOut>(string existingStepId, string stepId, IBehavior<TIn, TOut> behavior, string description)
        where TIn : class, IBehaviorContext
        where TOut : class, IBehaviorContext
    {
        var index = IndexOf(existingStepId, $"insert '{stepId}' after");
        if (index >= 0) _steps.Insert(index + 1, Create(stepId, behavior, description));
        return this;
    }

    /// <summary>Validates the registrations and builds the prewired pipeline.</summary>
    /// <exception cref="PipelineValidationException">The registrations do not form a valid pipeline.</exception>
    public Pipeline<TContext> Build<TContext>()
        where TContext : class, IBehaviorContext
    {
        var steps = Validate<TContext>();
        Delegate? next = null;
        for (var i = steps.Count - 1; i >= 0; i--)
        {
            next = steps[i].Wire(next);
        }
        return new Pipeline<TContext>((Func<TContext, ValueTask>)next!, steps, "prewired");
    }

    /// <summary>The registrations in order, validated for a pipeline rooted at <typeparamref name="TContext"/>.</summary>
    internal IReadOnlyList<StepRegistration> Validate<TContext>()
        where TContext : class, IBehaviorContext
    {
        var problems = new List<string>(_problems);
        PipelineValidator.Validate(typeof(TContext), _steps, problems);
        if (problems.Count > 0) throw new PipelineValidationException(problems);
        return _steps.ToArray();
    }

    private static StepRegistration<TIn, TOut> Create<TIn, TOut>(string stepId, IBehavior<TIn, TOut> behavior, string description)
        where TIn : class, IBehaviorContext
        where TOut : class, IBehaviorContext
    {
        ArgumentException.ThrowIfNullOrWhiteSpace(stepId);
        ArgumentNullException.ThrowIfNull(behavior);
        ArgumentNullException.ThrowIfNull(description);
        return new StepRegistration<TIn, TOut>(stepId, behavior, description);
    }

    private int IndexOf(string stepId, string operation)
    {
        ArgumentException.ThrowIfNullOrWhiteSpace(stepId);
        var index = _steps.FindIndex(s => s.Id == stepId);
        if (index < 0) _problems.Add($"cannot {operation} step '{stepId}': no step with that id is registered.");
        return index;
    }
}
