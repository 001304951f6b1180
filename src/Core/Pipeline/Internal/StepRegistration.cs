namespace Prewire.Pipeline.Internal;

/// <summary>
/// A registered step, holding its behavior as the closed <see cref="IBehavior{TIn, TOut}"/> it was
/// registered as. That closed generic type is what lets <see cref="Wire"/> create a typed invoker node
/// without reflection: the compiler instantiated it at the registration call site.
/// </summary>
internal abstract class StepRegistration(string id, string description)
{
    public string Id { get; } = id;

    public string Description { get; } = description;

    public abstract object Behavior { get; }

    public abstract Type InputType { get; }

    public abstract Type OutputType { get; }

    public abstract PipelineStepKind Kind { get; }

    public PipelineStep ToStep() => new(Id, Kind, Behavior.GetType(), InputType, OutputType, Description)
    {
        ForkSteps = Behavior is IForkConnector fork ? fork.ForkSteps : [],
    };

    /// <summary>
    /// Creates this step's node around the already-wired continuation and returns the node's entry,
    /// a <c>Func&lt;TIn, ValueTask&gt;</c>. <paramref name="next"/> is the following step's entry, or the
    /// cached completed delegate after a terminator.
    /// </summary>
    public abstract Delegate Wire(Delegate? next);
}

internal sealed class StepRegistration<TIn, TOut>(string id, IBehavior<TIn, TOut> behavior, string description)
    : StepRegistration(id, description)
    where TIn : class, IBehaviorContext
    where TOut : class, IBehaviorContext
{
    public override object Behavior => behavior;

    public override Type InputType => typeof(TIn);

    public override Type OutputType => typeof(TOut);

    public override PipelineStepKind Kind =>
        typeof(TOut) == typeof(PipelineTerminator<TIn>.ITerminatingContext) ? PipelineStepKind.Terminator
        : typeof(TIn) != typeof(TOut) ? PipelineStepKind.Connector
        : behavior is IForkConnector ? PipelineStepKind.Fork
        : PipelineStepKind.Behavior;

    // The next entry is a Func<TNextIn, ValueTask> where TOut is assignable to TNextIn: delegate
    // contravariance makes the cast valid, with no adapter in between.
    public override Delegate Wire(Delegate? next) =>
        new Func<TIn, ValueTask>(new BehaviorNode<TIn, TOut>(behavior, (Func<TOut, ValueTask>?)next ?? CompletedNext<TOut>.Instance).Invoke);
}
