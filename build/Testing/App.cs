namespace Prewire.Testing;

/// <summary>One of the sample apps, as the harness publishes and runs it.</summary>
public sealed record App(string Name, string ProjectDirectory, bool IsWeb, bool IsWorker = false)
{
    public static readonly App Publisher = new("Publisher", "samples/Publisher", IsWeb: false);
    public static readonly App Consumer = new("Consumer", "samples/Consumer", IsWeb: false, IsWorker: true);
    public static readonly App HttpEndpoint = new("HttpEndpoint", "samples/HttpEndpoint", IsWeb: true);

    public static IReadOnlyList<App> All { get; } = [Publisher, Consumer, HttpEndpoint];

    /// <summary>Not an app: the NativeAOT hello world the start-up gate measures the apps against (build/StartupFloor).</summary>
    public static readonly App StartupFloor = new("StartupFloor", "build/StartupFloor", IsWeb: false);

    public static App Named(string name) =>
        All.FirstOrDefault(a => string.Equals(a.Name, name, StringComparison.OrdinalIgnoreCase))
        ?? throw new ArgumentException($"unknown app '{name}'; expected one of {string.Join(", ", All.Select(a => a.Name))}", nameof(name));

    /// <summary>Runs until it is stopped: the web app always, a worker (the Consumer without --count) when it has a broker.</summary>
    public bool RunsUntilStopped(bool withBroker) => IsWeb || (IsWorker && withBroker);

    /// <summary>The executable's file name: the project's assembly name.</summary>
    public string ExecutableName => $"Prewire.{Name}";

    public override string ToString() => Name;
}
