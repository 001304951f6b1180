namespace Prewire.Testing;

/// <summary>
/// A client as the apps are asked for it: the build that holds it and the arguments that pick it.
/// Prewire's is every build's default; RabbitMQ.Client needs the both-clients build.
/// </summary>
public sealed record AppClient(string Name, AmqpClients Build, IReadOnlyList<string> Arguments)
{
    public static readonly AppClient Prewire = new("Prewire", AmqpClients.Prewire, []);

    public static readonly AppClient RabbitMQ = new("RabbitMQ.Client", AmqpClients.Both, ["--client", "rabbitmq"]);

    /// <summary>Both, RabbitMQ.Client first (the baseline a comparison reads against).</summary>
    public static IReadOnlyList<AppClient> All { get; } = [RabbitMQ, Prewire];

    public static AppClient Named(string name) =>
        All.SingleOrDefault(c => c.Name == name) ?? throw new ArgumentOutOfRangeException(nameof(name), name, "not a client");

    /// <summary>The build an app started with <paramref name="args"/> needs: the both-clients one when they ask for RabbitMQ.Client.</summary>
    public static AmqpClients BuildFor(IReadOnlyList<string> args)
    {
        ArgumentNullException.ThrowIfNull(args);
        for (var i = 0; i + 1 < args.Count; i++)
        {
            if (args[i] == "--client" && string.Equals(args[i + 1], "rabbitmq", StringComparison.OrdinalIgnoreCase)) return AmqpClients.Both;
        }
        return AmqpClients.Prewire;
    }

    public override string ToString() => Name;
}
