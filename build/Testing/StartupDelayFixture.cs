using System.Collections.Concurrent;
using System.Globalization;

namespace Prewire.Testing;

/// <summary>
/// An app published with a start-up regression (tests/AotSmoke/Fixtures/StartupDelay: busy milliseconds,
/// fixed microseconds of work or a sleep before Main), to prove the start-up gate fails it. The binary
/// reads its delay at start, from the file <see cref="Set"/> writes beside it: one publish per app and
/// RID serves every delay.
/// </summary>
public static class StartupDelayFixture
{
    private static readonly ConcurrentDictionary<(App App, string Rid), Lazy<Task<PublishResult>>> _published = new();

    public static string TargetsPath => Path.Combine(Repo.Root, "tests", "AotSmoke", "Fixtures", "StartupDelay", "StartupDelay.targets");

    /// <summary>The amount's unit: µs for <see cref="StartupDelayKind.Work"/>, ms otherwise.</summary>
    public static string Unit(StartupDelayKind kind) => kind == StartupDelayKind.Work ? "µs" : "ms";

    /// <summary><paramref name="app"/> with the delay compiled in, published once per process for each RID.</summary>
    public static Task<PublishResult> PublishAsync(App app, string rid)
    {
        ArgumentNullException.ThrowIfNull(app);
        return _published.GetOrAdd((app, rid), key => new(() => Publishing.PublishProjectAsync(key.App, Path.Combine(Repo.Root, key.App.ProjectDirectory), key.Rid, PublishMode.Aot,
            ["-p:PublishAot=true", $"-p:CustomAfterMicrosoftCommonTargets={TargetsPath}"],
            Path.Combine(Repo.Artifacts, "publish", key.Rid, "startup-delay", key.App.Name), variant: "startup-delay"))).Value;
    }

    /// <summary>Makes <paramref name="fixture"/>'s next starts <paramref name="amount"/> (<see cref="Unit"/>) slower in the way <paramref name="kind"/> says.</summary>
    public static void Set(PublishResult fixture, StartupDelayKind kind, double amount)
    {
        ArgumentNullException.ThrowIfNull(fixture);
        File.WriteAllText(Path.Combine(fixture.Directory, "startup-delay"),
            $"{kind.ToString().ToLowerInvariant()} {amount.ToString("0.###", CultureInfo.InvariantCulture)}");
    }
}
