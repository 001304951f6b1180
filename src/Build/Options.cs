using System.Globalization;

namespace Prewire.Build;

/// <summary>A verb's options as the targets pass them: <c>--name value</c> pairs.</summary>
internal sealed class Options
{
    private readonly Dictionary<string, string> _named = new(StringComparer.Ordinal);

    private Options()
    {
    }

    /// <summary>Null when the arguments are not name-value pairs.</summary>
    public static Options? Parse(IReadOnlyList<string> args)
    {
        if (args.Count % 2 != 0) return null;
        var options = new Options();
        for (var i = 0; i < args.Count; i += 2)
        {
            if (!args[i].StartsWith("--", StringComparison.Ordinal)) return null;
            options._named[args[i]] = args[i + 1];
        }
        return options;
    }

    /// <summary>The value of <paramref name="name"/>; throws a usage error naming it when absent.</summary>
    public string Required(string name) =>
        _named.TryGetValue(name, out var value) && value.Length > 0 ? value : throw new UsageException($"{name} is required");

    public string Optional(string name) => _named.GetValueOrDefault(name, "");

    /// <summary>
    /// Free text: <paramref name="name"/>, or <c>NAME-base64</c> decoded (as the targets pass it: MSBuild
    /// on Linux turns a task parameter's backslashes into slashes).
    /// </summary>
    public string Text(string name)
    {
        if (_named.TryGetValue($"{name}-base64", out var encoded))
        {
            try
            {
                return System.Text.Encoding.UTF8.GetString(Convert.FromBase64String(encoded));
            }
            catch (FormatException)
            {
                throw new UsageException($"{name}-base64 is not base64: '{encoded}'");
            }
        }
        return Optional(name);
    }

    /// <summary>A non-negative number, or <paramref name="otherwise"/> when not given.</summary>
    public double Number(string name, double otherwise) =>
        !_named.TryGetValue(name, out var text) || text.Length == 0 ? otherwise
        : double.TryParse(text, NumberStyles.Float, CultureInfo.InvariantCulture, out var value) && value >= 0 ? value
        : throw new UsageException($"{name} must be a non-negative number, not '{text}'");
}

/// <summary>Arguments the program cannot run with; exits 2 with its message.</summary>
internal sealed class UsageException(string message) : Exception(message);
