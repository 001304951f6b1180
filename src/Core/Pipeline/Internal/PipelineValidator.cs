namespace Prewire.Pipeline.Internal;

/// <summary>The rules a list of registrations must follow to form a pipeline; every broken rule is reported.</summary>
internal static class PipelineValidator
{
    public static void Validate(Type rootContext, IReadOnlyList<StepRegistration> steps, List<string> problems)
    {
        if (steps.Count == 0)
        {
            problems.Add($"no steps are registered; a pipeline for {rootContext.Name} needs at least a terminator.");
            return;
        }

        var ids = new HashSet<string>(steps.Count, StringComparer.Ordinal);
        foreach (var step in steps)
        {
            if (ids.Add(step.Id)) continue;
            var same = steps.Where(s => s.Id == step.Id).ToList();
            if (same[^1] == step) // report each duplicated id once, at its last registration
                problems.Add($"step id '{step.Id}' is registered {same.Count} times ({string.Join(", ", same.Select(s => s.Behavior.GetType().Name))}).");
        }

        var first = steps[0];
        if (!first.InputType.IsAssignableFrom(rootContext))
            problems.Add($"the first step '{first.Id}' takes {first.InputType.Name}, but the pipeline starts with {rootContext.Name}.");

        for (var i = 0; i + 1 < steps.Count; i++)
        {
            var (current, following) = (steps[i], steps[i + 1]);
            if (current.Kind == PipelineStepKind.Terminator)
            {
                problems.Add($"step '{following.Id}' comes after the terminator '{current.Id}'; nothing runs after a terminator ({string.Join(", ", steps.Skip(i + 1).Select(s => $"'{s.Id}'"))}).");
                break;
            }
            if (!following.InputType.IsAssignableFrom(current.OutputType))
                problems.Add($"step '{current.Id}' continues with {current.OutputType.Name}, but the next step '{following.Id}' takes {following.InputType.Name}.");
        }

        var last = steps[^1];
        if (last.Kind != PipelineStepKind.Terminator && !HasTerminator(steps))
            problems.Add($"no terminator: the last step '{last.Id}' continues with {last.OutputType.Name}, but nothing ends the pipeline.");
    }

    private static bool HasTerminator(IReadOnlyList<StepRegistration> steps)
    {
        foreach (var step in steps)
        {
            if (step.Kind == PipelineStepKind.Terminator) return true;
        }
        return false;
    }
}
