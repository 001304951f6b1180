using System.Text;

namespace Prewire.Pipeline.Internal;

internal static class PipelineDescription
{
    public static void Append(StringBuilder text, IReadOnlyList<PipelineStep> steps, string indent)
    {
        var idWidth = steps.Max(s => s.Id.Length);
        var typeWidth = steps.Max(s => TypeName(s.BehaviorType).Length);
        Type? stage = null;
        foreach (var step in steps)
        {
            if (step.InputType != stage)
            {
                stage = step.InputType;
                text.Append(indent).Append("stage ").AppendLine(TypeName(stage));
            }
            text.Append(indent).Append("  ").Append(step.Id.PadRight(idWidth)).Append("  ")
                .Append(TypeName(step.BehaviorType).PadRight(typeWidth)).Append("  ").Append(step.Description);
            if (step.Kind == PipelineStepKind.Connector) text.Append(" -> ").Append(TypeName(step.OutputType));
            if (step.Kind == PipelineStepKind.Terminator) text.Append(" (end)");
            text.AppendLine();
            if (step.ForkSteps.Count > 0) Append(text, step.ForkSteps, indent + "    | ");
        }
    }

    /// <summary>A readable name for generic types: <c>Outer&lt;Arg&gt;</c>.</summary>
    public static string TypeName(Type type)
    {
        if (!type.IsGenericType) return type.Name;
        var name = type.Name;
        var tick = name.IndexOf('`', StringComparison.Ordinal);
        return $"{(tick < 0 ? name : name[..tick])}<{string.Join(", ", type.GetGenericArguments().Select(TypeName))}>";
    }
}
