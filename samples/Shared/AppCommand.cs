using System.CommandLine;
using System.CommandLine.Help;
using OpenTelemetry.Trace;
using Prewire.Amqp;
using Prewire.Pipeline;
using Serilog;
using Serilog.Events;

namespace Prewire.Samples;

/// <summary>
/// The command line every app starts from: its own options plus the shared ones, each falling back
/// to an environment variable, and one policy for errors (one line on stderr, exit 1 or 2).
/// </summary>
public sealed class AppCommand
{
    private readonly Command _root;
    private Option<bool>? _describe;
    private Option<bool>? _warmupReport;
    private Option<bool>? _json;
    private Option<bool>? _heapCheck;
    private bool _hasHelpAndVersion;

    /// <summary>Creates the command with the shared options.</summary>
    /// <param name="name">The executable's name, as help prints it.</param>
    /// <param name="description">One sentence: what the app does.</param>
    public AppCommand(string name, string description)
    {
        // A plain Command rather than RootCommand: RootCommand names itself after the executable with
        // its last dot-suffix dropped, which turns "Prewire.Publisher" into "Prewire".
        _root = new Command(name, description) { LogLevel };
    }

    /// <summary>The app's OpenTelemetry service name: its name in lower case, dashes for dots ("Prewire.HttpEndpoint" is prewire-httpendpoint).</summary>
    public string ServiceName => _root.Name.Replace(".", "-", StringComparison.Ordinal).ToLowerInvariant();

    /// <summary>What the app adds to tracing beside Prewire's messaging spans when telemetry is on (<see cref="AppTelemetry"/>): an instrumentation, a source.</summary>
    public Action<TracerProviderBuilder>? ConfigureTracing { get; set; }

    /// <summary>Meters exported beside Prewire's messaging metrics when telemetry is on (<see cref="AppTelemetry"/>).</summary>
    public ICollection<string> ExportedMeters { get; } = [];

    /// <summary><c>--log-level</c>, falling back to <c>PREWIRE_LOG_LEVEL</c>.</summary>
    /// <remarks>Defaults to <c>Information</c>.</remarks>
    public Option<LogEventLevel> LogLevel { get; } = new("--log-level")
    {
        Description = "Minimum log level (Verbose, Debug, Information, Warning, Error, Fatal). Env: PREWIRE_LOG_LEVEL.",
        DefaultValueFactory = _ => Enum.TryParse<LogEventLevel>(Environment.GetEnvironmentVariable("PREWIRE_LOG_LEVEL"), ignoreCase: true, out var level)
            ? level
            : LogEventLevel.Information,
    };

    /// <summary>Adds an option whose value falls back to an environment variable, then to <paramref name="defaultValue"/>.</summary>
    public Option<string?> AddOption(string name, string description, string? environmentVariable = null, string? defaultValue = null)
    {
        var option = new Option<string?>(name)
        {
            Description = environmentVariable is null ? description : $"{description} Env: {environmentVariable}.",
            DefaultValueFactory = _ => (environmentVariable is null ? null : NullIfEmpty(Environment.GetEnvironmentVariable(environmentVariable))) ?? defaultValue,
        };
        _root.Options.Add(option);
        return option;
    }

    /// <summary>Adds a non-negative integer option falling back to an environment variable, then to <paramref name="defaultValue"/>.</summary>
    public Option<int> AddCount(string name, string description, string environmentVariable, int defaultValue) =>
        AddParsed(name, description, environmentVariable, defaultValue, CountExpected, ParseCount);

    /// <summary>Adds a non-negative integer option falling back to an environment variable; <see langword="null"/> when neither is given.</summary>
    public Option<int?> AddOptionalCount(string name, string description, string environmentVariable) =>
        AddParsed<int?>(name, description, environmentVariable, null, CountExpected, text => ParseCount(text) is (true, var count) ? (true, count) : (false, null));

    private const string CountExpected = "a whole number of 0 or more";

    private static (bool Ok, int Value) ParseCount(string text) =>
        (int.TryParse(text, System.Globalization.NumberStyles.None, System.Globalization.CultureInfo.InvariantCulture, out var value), value);

    /// <summary>
    /// Adds an option that <paramref name="parse"/> reads from the flag or, without it, from
    /// <paramref name="environmentVariable"/>; text it cannot read is a usage error naming where it came
    /// from and saying it must be <paramref name="expected"/>.
    /// </summary>
    /// <remarks>
    /// Parsed here, not by System.CommandLine's converter: a value it cannot read must be a usage
    /// error, and reading a failed conversion in a validator throws out of the parser instead.
    /// </remarks>
    internal Option<T> AddParsed<T>(string name, string description, string environmentVariable, T defaultValue, string expected, Func<string, (bool Ok, T Value)> parse)
    {
        var option = new Option<T>(name)
        {
            Description = $"{description} Env: {environmentVariable}.",
            DefaultValueFactory = result => Environment.GetEnvironmentVariable(environmentVariable) is { Length: > 0 } text ? Parse(result, text, environmentVariable) : defaultValue,
            CustomParser = result => Parse(result, result.Tokens.Count == 0 ? "" : result.Tokens[^1].Value, name),
        };
        _root.Options.Add(option);
        return option;

        T Parse(System.CommandLine.Parsing.ArgumentResult result, string text, string source)
        {
            var (ok, value) = parse(text);
            if (ok) return value;
            result.AddError($"{source} must be {expected}, not '{text}'.");
            return defaultValue;
        }
    }

    /// <summary>Adds <c>--describe</c>: print the app's pipeline and exit; see <see cref="Describe"/>.</summary>
    /// <param name="pipeline">Which pipeline, as help names it (e.g. "outgoing").</param>
    public void AddDescribe(string pipeline) =>
        _describe = AddFlag("--describe", $"Print the {pipeline} pipeline and exit.");

    /// <summary>With <c>--describe</c> given, prints <paramref name="pipeline"/> and returns <see langword="true"/>: the app exits 0.</summary>
    public bool Describe<TContext>(ParseResult parsed, Pipeline<TContext> pipeline)
        where TContext : class, IBehaviorContext
    {
        ArgumentNullException.ThrowIfNull(parsed);
        ArgumentNullException.ThrowIfNull(pipeline);
        if (!parsed.GetValue(_describe ?? throw new InvalidOperationException($"call {nameof(AddDescribe)} first"))) return false;
        Console.Write(pipeline.Describe());
        return true;
    }

    /// <summary>Adds the hidden <c>--warmup-report</c> flag (see <see cref="WarmupReport"/>).</summary>
    public void AddWarmupReport()
    {
        _warmupReport = new Option<bool>("--warmup-report") { Hidden = true, Description = "Build the pipeline, send one message to an in-process sink, print JSON and exit." };
        _root.Options.Add(_warmupReport);
    }

    /// <summary><see langword="true"/> when <c>--warmup-report</c> was given.</summary>
    public bool WantsWarmupReport(ParseResult parsed)
    {
        ArgumentNullException.ThrowIfNull(parsed);
        return parsed.GetValue(_warmupReport ?? throw new InvalidOperationException($"call {nameof(AddWarmupReport)} first"));
    }

    /// <summary>Adds the hidden <c>--heap-check</c> flag: the report also gives the heap after full collections (<see cref="RunReport.HeapCheck"/>).</summary>
    public void AddHeapCheck()
    {
        _heapCheck = new Option<bool>("--heap-check") { Hidden = true, Description = "Report the managed heap after a full collection once warm and at the end (soak runs)." };
        _root.Options.Add(_heapCheck);
    }

    /// <summary><see langword="true"/> when <c>--heap-check</c> was given.</summary>
    public bool WantsHeapCheck(ParseResult parsed)
    {
        ArgumentNullException.ThrowIfNull(parsed);
        return _heapCheck is not null && parsed.GetValue(_heapCheck);
    }

    /// <summary>Adds <c>--liveness-port</c> and <c>--readiness-port</c> (see <see cref="ProbeOptions"/>).</summary>
    /// <param name="readyWhen">When the app is ready, as help says it (e.g. "consuming").</param>
    public ProbeOptions AddProbes(string readyWhen) => new(this, readyWhen);

    /// <summary>Adds <c>--json</c>: the run's report as one JSON object on stdout, the log on stderr (see <see cref="RunReport"/>).</summary>
    public void AddJsonReport() =>
        _json = AddFlag("--json", "Print the final report as one JSON object on stdout; the log goes to stderr.");

    /// <summary><see langword="true"/> when <c>--json</c> was given.</summary>
    public bool WantsJson(ParseResult parsed)
    {
        ArgumentNullException.ThrowIfNull(parsed);
        return _json is not null && parsed.GetValue(_json);
    }

    /// <summary>Adds a flag.</summary>
    public Option<bool> AddFlag(string name, string description)
    {
        var option = new Option<bool>(name) { Description = description };
        _root.Options.Add(option);
        return option;
    }

    /// <summary>Adds the broker's options (see <see cref="BrokerOptions"/>).</summary>
    /// <param name="queueDescription">What the app does with the queue.</param>
    public BrokerOptions AddBroker(string queueDescription) => new(this, queueDescription);

    internal void Add(Option option) => _root.Options.Add(option);

    /// <summary>
    /// Parses <paramref name="args"/> and runs <paramref name="run"/> with a console logger at
    /// <c>--log-level</c>. Usage errors exit 2; an <see cref="AppException"/>, an
    /// <see cref="AmqpException"/> or any other failure prints one line on stderr and exits 1;
    /// <c>--help</c> prints help and exits 0. SIGTERM and SIGINT (Ctrl+C) cancel the token and nothing
    /// else: the app stops taking work, finishes what is in flight and exits 0 (see the apps).
    /// </summary>
    public int Run(string[] args, Func<ParseResult, ILogger, CancellationToken, Task<int>> run)
    {
        ArgumentNullException.ThrowIfNull(run);
        var result = Parse(args);
        if (result.Errors.Count > 0)
        {
            Console.Error.WriteLine($"error: {result.Errors[0].Message} (see --help)");
            return ExitCodes.Usage;
        }

        _root.SetAction((parsed, _) => RunAsync(parsed, run));
        // The signals are handled in RunAsync; System.CommandLine's own Ctrl+C handling would end the process after a timeout.
        return result.Invoke(new InvocationConfiguration { EnableDefaultExceptionHandler = false, ProcessTerminationTimeout = null });
    }

    private async Task<int> RunAsync(ParseResult parsed, Func<ParseResult, ILogger, CancellationToken, Task<int>> run)
    {
        using var log = AppLogging.Create(parsed.GetValue(LogLevel), toStandardError: WantsJson(parsed));
        using var signals = new StopSignals();
        var cancellationToken = signals.Token;
        try
        {
            // Disposed once the run is over: it sends the run's last spans and metrics.
            using var telemetry = AppTelemetry.Start(ServiceName, ConfigureTracing, ExportedMeters, log);
            return await run(parsed, log, cancellationToken).ConfigureAwait(false);
        }
        catch (AppException e)
        {
            Console.Error.WriteLine($"error: {e.Message}");
            return e.ExitCode;
        }
        catch (AmqpException e)
        {
            // Both clients word broker failures for people (the broker's address, never its password).
            Console.Error.WriteLine($"error: {e.Message}");
            return ExitCodes.Failure;
        }
        catch (OperationCanceledException) when (cancellationToken.IsCancellationRequested)
        {
            return ExitCodes.Success;
        }
#pragma warning disable CA1031 // The last line of defence: one clear line, never a stack trace.
        catch (Exception e)
#pragma warning restore CA1031
        {
            Console.Error.WriteLine($"error: {e.GetType().Name}: {e.Message}");
            return ExitCodes.Failure;
        }
    }

    internal ParseResult Parse(string[] args)
    {
        // --help and --version join the command only when a token spells one of their names: their
        // constructors read their descriptions through the process's first ResourceManager, 0.52 M of
        // the Publisher's 13.06 M start instructions (docs/benchmarks.md). Without such a token a
        // command line parses the same with or without them; with one it is parsed again.
        var parsed = _root.Parse(args);
        if (_hasHelpAndVersion || !parsed.Tokens.Any(token => _helpAndVersionNames.Contains(token.Value)))
        {
            return parsed;
        }

        _root.Options.Add(new HelpOption());
        _root.Options.Add(new VersionOption());
        _hasHelpAndVersion = true;
        return _root.Parse(args);
    }

    private static readonly string[] _helpAndVersionNames = ["--help", "-h", "/h", "-?", "/?", "--version"];

    private static string? NullIfEmpty(string? value) => string.IsNullOrEmpty(value) ? null : value;
}
