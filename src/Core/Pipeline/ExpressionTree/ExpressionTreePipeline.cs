using System.Diagnostics.CodeAnalysis;
using System.Linq.Expressions;
using System.Reflection;
using Prewire.Pipeline.Internal;

namespace Prewire.Pipeline.ExpressionTree;

/// <summary>
/// The comparison baseline: the same registrations and semantics as <see cref="PipelineBuilder.Build{TContext}"/>,
/// built the way reflection-based pipelines are — each step compiled from an expression tree that
/// calls the behavior through its closed <see cref="IBehavior{TIn, TOut}"/> interface, found with
/// <see cref="Type.MakeGenericType"/> at run time.
/// </summary>
/// <remarks>
/// Needs dynamic code: JIT builds only. Apps select it with <c>-p:PipelineBuilder=ExpressionTree</c>,
/// which a NativeAOT publish refuses (build/Pipeline.targets).
/// </remarks>
public static class ExpressionTreePipeline
{
    /// <summary>Validates the registrations and builds the pipeline from compiled expression trees.</summary>
    [RequiresDynamicCode("Compiles expression trees and closes generic types at run time.")]
    [RequiresUnreferencedCode("Finds IBehavior<TIn, TOut>.Invoke by reflection.")]
    public static Pipeline<TContext> BuildWithExpressionTrees<TContext>(this PipelineBuilder builder)
        where TContext : class, IBehaviorContext
    {
        ArgumentNullException.ThrowIfNull(builder);
        var steps = builder.Validate<TContext>();

        Delegate? next = null;
        for (var i = steps.Count - 1; i >= 0; i--)
        {
            next = Compile(steps[i], next);
        }
        return new Pipeline<TContext>((Func<TContext, ValueTask>)next!, steps, "expression-tree");
    }

    // context => ((IBehavior<TIn, TOut>)behavior).Invoke(context, next), compiled once per step.
    [RequiresDynamicCode("Compiles expression trees and closes generic types at run time.")]
    [RequiresUnreferencedCode("Finds IBehavior<TIn, TOut>.Invoke by reflection.")]
    private static Delegate Compile(StepRegistration step, Delegate? next)
    {
        var behaviorInterface = typeof(IBehavior<,>).MakeGenericType(step.InputType, step.OutputType);
        var invoke = behaviorInterface.GetMethod(nameof(IBehavior<IBehaviorContext, IBehaviorContext>.Invoke), BindingFlags.Public | BindingFlags.Instance)!;
        var nextType = typeof(Func<,>).MakeGenericType(step.OutputType, typeof(ValueTask));
        next ??= (Delegate)typeof(CompletedNext<>).MakeGenericType(step.OutputType).GetField("Instance")!.GetValue(null)!;

        var context = Expression.Parameter(step.InputType, "context");
        var call = Expression.Call(
            Expression.Convert(Expression.Constant(step.Behavior), behaviorInterface),
            invoke,
            context,
            Expression.Constant(next, nextType));
        return Expression.Lambda(typeof(Func<,>).MakeGenericType(step.InputType, typeof(ValueTask)), call, $"step_{step.Id}", [context]).Compile();
    }
}
