namespace Prewire.Harness;

/// <summary><c>benchmarks/rolling-restart.sh</c>: publishes the HttpEndpoint and the Consumer for this host (NativeAOT), then runs <see cref="RollingRestart"/>.</summary>
public static class RollingRestartRun
{
    // Steady, well under what two endpoints take on two cores: the run measures what restarts do, not saturation.
    private const int Rate = 200;

    public static async Task<int> RunAsync(TimeSpan load, TextWriter output)
    {
        ArgumentNullException.ThrowIfNull(output);
        var executables = new List<string>();
        foreach (var app in new[] { App.HttpEndpoint, App.Consumer })
        {
            output.WriteLine($"rolling restart: publishing {app} ({Repo.HostRid}, NativeAOT)...");
            var published = await Publishing.PublishAsync(app, Repo.HostRid, PublishMode.Aot).ConfigureAwait(false);
            if (!published.Succeeded)
            {
                output.WriteLine($"rolling restart: publishing {app} failed:\n{published.Output}");
                return 1;
            }
            executables.Add(published.ExecutablePath);
        }
        var result = await RollingRestart.RunAsync(executables[0], executables[1], load, Rate, output, CancellationToken.None).ConfigureAwait(false);
        result.Write(output);
        return result.Passed ? 0 : 1;
    }
}
