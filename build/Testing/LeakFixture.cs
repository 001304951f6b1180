using System.Globalization;

namespace Prewire.Testing;

/// <summary>
/// An app published with a slow leak in its own per-message path (tests/AotSmoke/Fixtures/Leak: 64 B kept
/// once every N messages, in the Consumer's handler or the Publisher's publish loop), to prove the
/// long-run check sees it.
/// </summary>
public static class LeakFixture
{
    /// <summary>The leak the issue names: 64 B kept once every 5,000 messages.</summary>
    public const int Every = 5_000;

    public static string TargetsPath => Path.Combine(Repo.Root, "tests", "AotSmoke", "Fixtures", "Leak", "Leak.targets");

    public static Task<PublishResult> PublishAsync(App app, string rid, int every = Every, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(app);
        // The file holding the app's per-message line, report.Done(Interlocked.Increment(ref …)).
        var file = app == App.Consumer ? "Program.cs" : app == App.Publisher ? "PublishRun.cs"
            : throw new ArgumentOutOfRangeException(nameof(app), app, "only the Consumer and the Publisher count messages");
        var value = every.ToString(CultureInfo.InvariantCulture);
        return Publishing.PublishProjectAsync(app, Path.Combine(Repo.Root, app.ProjectDirectory), rid, PublishMode.Aot,
            ["-p:PublishAot=true", $"-p:CustomAfterMicrosoftCommonTargets={TargetsPath}", $"-p:LeakEvery={value}", $"-p:LeakFile={file}"],
            Path.Combine(Repo.Artifacts, "publish", rid, "leak", $"{app.Name}-every-{value}"), variant: $"leak-every-{value}", cancellationToken: cancellationToken);
    }
}
