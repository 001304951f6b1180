using Prewire.Pipeline;

namespace Prewire.Samples;

/// <summary>
/// Builds the apps' pipelines with the builder chosen for the whole app at build time:
/// prewired by default, the expression-tree baseline with <c>-p:PipelineBuilder=ExpressionTree</c>
/// (JIT builds only; build/Pipeline.targets refuses it for NativeAOT).
/// </summary>
public static class PipelineSelection
{
    /// <summary>The builder this app was compiled with.</summary>
    public const string Builder =
#if PREWIRE_EXPRESSION_TREE_PIPELINE
        "expression-tree";
#else
        "prewired";
#endif

    /// <summary>Validates and builds <paramref name="builder"/> with the selected builder.</summary>
    public static Pipeline<TContext> Build<TContext>(PipelineBuilder builder)
        where TContext : class, IBehaviorContext
    {
        ArgumentNullException.ThrowIfNull(builder);
#if PREWIRE_EXPRESSION_TREE_PIPELINE
        // JIT-only build: build/Pipeline.targets fails a NativeAOT build that selects this.
#pragma warning disable IL2026, IL3050
        return Prewire.Pipeline.ExpressionTree.ExpressionTreePipeline.BuildWithExpressionTrees<TContext>(builder);
#pragma warning restore IL2026, IL3050
#else
        return builder.Build<TContext>();
#endif
    }
}
