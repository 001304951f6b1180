namespace Prewire.Pipeline;

/// <summary>Contexts for the pipeline tests: a root, a child and a grandchild stage, sharing one trace.</summary>
public sealed class RootContext(CancellationToken cancellationToken = default) : BehaviorContext(cancellationToken)
{
    public List<string> Trace { get; } = [];
}

public sealed class ChildContext(RootContext parent) : BehaviorContext(parent)
{
    public RootContext Root { get; } = parent;

    public List<string> Trace => Root.Trace;
}

public sealed class GrandchildContext(ChildContext parent) : BehaviorContext(parent)
{
    public ChildContext Child { get; } = parent;

    public List<string> Trace => Child.Trace;
}

/// <summary>Appends its name to the trace, then continues.</summary>
public sealed class Tracing(string name) : IBehavior<RootContext, RootContext>
{
    public ValueTask Invoke(RootContext context, Func<RootContext, ValueTask> next)
    {
        context.Trace.Add(name);
        return next(context);
    }
}

/// <summary>The single-context convenience base: traces before and after next().</summary>
public sealed class Wrapping(string name) : Behavior<RootContext>
{
    public override async ValueTask Invoke(RootContext context, Func<ValueTask> next)
    {
        context.Trace.Add($"{name}:before");
        await next();
        context.Trace.Add($"{name}:after");
    }
}

public sealed class ToChild : StageConnector<RootContext, ChildContext>
{
    public override ValueTask Invoke(RootContext context, Func<ChildContext, ValueTask> next)
    {
        context.Trace.Add("to-child");
        return next(new ChildContext(context));
    }
}

public sealed class ToGrandchild : StageConnector<ChildContext, GrandchildContext>
{
    public override ValueTask Invoke(ChildContext context, Func<GrandchildContext, ValueTask> next)
    {
        context.Trace.Add("to-grandchild");
        return next(new GrandchildContext(context));
    }
}

public sealed class EndRoot : PipelineTerminator<RootContext>
{
    public int Calls { get; private set; }

    protected override ValueTask Terminate(RootContext context)
    {
        Calls++;
        context.Trace.Add("end");
        return default;
    }
}

public sealed class EndGrandchild : PipelineTerminator<GrandchildContext>
{
    protected override ValueTask Terminate(GrandchildContext context)
    {
        context.Trace.Add("end-grandchild");
        return default;
    }
}

/// <summary>Runs a delegate as a behavior: for one-off behaviors in tests.</summary>
public sealed class Inline<TContext>(Func<TContext, Func<TContext, ValueTask>, ValueTask> body) : IBehavior<TContext, TContext>
    where TContext : class, IBehaviorContext
{
    public ValueTask Invoke(TContext context, Func<TContext, ValueTask> next) => body(context, next);
}
