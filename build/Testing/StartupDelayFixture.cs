using System.Globalization;

namespace Prewire.Testing;

/// <summary>
/// An app published with a known start-up regression (tests/AotSmoke/Fixtures/StartupDelay: busy
/// milliseconds, fixed microseconds of work or a sleep before Main), to prove the start-up gate fails it.
/// </summary>
public static class StartupDelayFixture
{
    public static string TargetsPath => Path.Combine(Repo.Root, "tests", "AotSmoke", "Fixtures", "StartupDelay", "StartupDelay.targets");

    /// <summary>The amount's unit: µs for <see cref="StartupDelayKind.Work"/>, ms otherwise.</summary>
    public static string Unit(StartupDelayKind kind) => kind == StartupDelayKind.Work ? "µs" : "ms";

    public static Task<PublishResult> PublishAsync(App app, string rid, StartupDelayKind kind, double amount, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(app);
        var (name, value) = (kind.ToString().ToLowerInvariant(), amount.ToString("0.###", CultureInfo.InvariantCulture));
        return Publishing.PublishProjectAsync(app, Path.Combine(Repo.Root, app.ProjectDirectory), rid, PublishMode.Aot,
            ["-p:PublishAot=true", $"-p:CustomAfterMicrosoftCommonTargets={TargetsPath}", $"-p:StartupDelay={name}", $"-p:StartupDelayAmount={value}"],
            Path.Combine(Repo.Artifacts, "publish", rid, "startup-delay", $"{app.Name}-{name}-{value}"), variant: $"startup-delay-{name}-{value}", cancellationToken: cancellationToken);
    }
}
