using System.Globalization;

namespace Prewire.Testing;

/// <summary>
/// An app published with a known start-up regression (tests/AotSmoke/Fixtures/StartupDelay: the
/// first thread kept busy for some milliseconds before Main), to prove the start-up gate fails it.
/// </summary>
public static class StartupDelayFixture
{
    public static string TargetsPath => Path.Combine(Repo.Root, "tests", "AotSmoke", "Fixtures", "StartupDelay", "StartupDelay.targets");

    public static Task<PublishResult> PublishAsync(App app, string rid, double delayMs, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(app);
        var ms = delayMs.ToString("0.###", CultureInfo.InvariantCulture);
        return Publishing.PublishProjectAsync(app, Path.Combine(Repo.Root, app.ProjectDirectory), rid, PublishMode.Aot,
            ["-p:PublishAot=true", $"-p:CustomAfterMicrosoftCommonTargets={TargetsPath}", $"-p:StartupDelayMs={ms}"],
            Path.Combine(Repo.Artifacts, "publish", rid, "startup-delay", $"{app.Name}-{ms}ms"), cancellationToken: cancellationToken);
    }
}
