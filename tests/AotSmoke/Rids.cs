using Prewire.Testing;

namespace Prewire.AotSmoke;

/// <summary>Every smoke check runs for both RIDs; linux-arm64 binaries run under qemu on an x64 host.</summary>
internal static class Rids
{
    public static IReadOnlyList<string> All => Repo.Rids;

    public static TheoryData<string, string> AppsByRid(params App[] apps)
    {
        var data = new TheoryData<string, string>();
        foreach (var rid in All)
            foreach (var app in apps.Length == 0 ? App.All : apps)
                data.Add(app.Name, rid);
        return data;
    }

    public static TheoryData<string> Each() => new(All.ToArray());

    /// <summary>The clients by name (<see cref="AppClient"/>): "RabbitMQ.Client" (from the both-clients build) and "Prewire".</summary>
    public static IReadOnlyList<string> Clients { get; } = [.. AppClient.All.Select(c => c.Name)];

    /// <summary>Each RID with each of the <see cref="Clients"/>.</summary>
    public static TheoryData<string, string> EachWithEachClient()
    {
        var data = new TheoryData<string, string>();
        foreach (var rid in All)
            foreach (var client in Clients)
                data.Add(rid, client);
        return data;
    }

    /// <summary>The arguments that pick <paramref name="client"/> (none for Prewire's, every build's default).</summary>
    public static string[] ClientArguments(string client) => [.. AppClient.Named(client).Arguments];

    /// <summary>
    /// Message counts for a run under emulation: qemu runs arm64 code several times slower, so arm64
    /// runs the same checks on fewer messages (never skips them).
    /// </summary>
    public static int Scaled(string rid, int count) => Qemu.Emulates(rid) ? Math.Max(1, count / 4) : count;
}
