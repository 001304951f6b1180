namespace Prewire.Pipeline;

/// <summary>A pipeline's registrations do not form a valid pipeline; <see cref="Exception.Message"/> lists every problem, naming the steps.</summary>
public sealed class PipelineValidationException : Exception
{
    /// <summary>Creates the exception.</summary>
    public PipelineValidationException(string message)
        : base(message)
    {
        Problems = [message];
    }

    /// <summary>Creates the exception for one or more problems.</summary>
    public PipelineValidationException(IReadOnlyList<string> problems)
        : base(Format(problems))
    {
        Problems = problems;
    }

    /// <summary>Creates the exception.</summary>
    public PipelineValidationException()
        : this("The pipeline is not valid.")
    {
    }

    /// <summary>Creates the exception.</summary>
    public PipelineValidationException(string message, Exception innerException)
        : base(message, innerException)
    {
        Problems = [message];
    }

    /// <summary>Each problem found, one sentence each.</summary>
    public IReadOnlyList<string> Problems { get; }

    private static string Format(IReadOnlyList<string> problems)
    {
        ArgumentNullException.ThrowIfNull(problems);
        return problems.Count == 1
            ? $"Invalid pipeline: {problems[0]}"
            : $"Invalid pipeline ({problems.Count} problems):{Environment.NewLine}  - {string.Join($"{Environment.NewLine}  - ", problems)}";
    }
}
