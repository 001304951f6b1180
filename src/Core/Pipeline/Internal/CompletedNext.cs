namespace Prewire.Pipeline.Internal;

/// <summary>The continuation after the last step: one cached delegate per context type, returning a completed task.</summary>
internal static class CompletedNext<TContext>
    where TContext : class
{
    public static readonly Func<TContext, ValueTask> Instance = static _ => default;
}
