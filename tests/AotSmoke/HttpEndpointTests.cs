using System.Diagnostics;
using System.Net;
using Prewire.Testing;

namespace Prewire.AotSmoke;

public sealed class HttpEndpointTests(PublishedApps published)
{
    public static TheoryData<string> EachRid => Rids.Each();

    [Theory]
    [MemberData(nameof(EachRid))]
    public async Task Liveness_is_200_readiness_without_a_broker_503_and_SIGTERM_exits_0_within_5_seconds(string rid)
    {
        var result = await published.GetSucceededAsync(App.HttpEndpoint, rid);
        await using var process = AppRuns.Start(App.HttpEndpoint, result.ExecutablePath, rid, brokerUri: null, out var baseAddress);
        await process.WaitForReadyAsync(AppRuns.ReadyTimeout(rid));

        using var http = new HttpClient { BaseAddress = baseAddress };
        using var response = await http.GetAsync(new Uri("health/live", UriKind.Relative), TestContext.Current.CancellationToken);
        Assert.Equal(HttpStatusCode.OK, response.StatusCode);
        Assert.Equal("{\"status\":\"live\"}", await response.Content.ReadAsStringAsync(TestContext.Current.CancellationToken));
        using var ready = await http.GetAsync(new Uri("health/ready", UriKind.Relative), TestContext.Current.CancellationToken);
        Assert.Equal(HttpStatusCode.ServiceUnavailable, ready.StatusCode);
        Assert.Equal("{\"status\":\"not ready\",\"reason\":\"no broker configured (--uri / RABBITMQ_URI)\"}", await ready.Content.ReadAsStringAsync(TestContext.Current.CancellationToken));

        using var notFound = await http.GetAsync(new Uri("nope", UriKind.Relative), TestContext.Current.CancellationToken);
        Assert.Equal(HttpStatusCode.NotFound, notFound.StatusCode);

        var stopping = Stopwatch.StartNew();
        process.Terminate();
        Assert.Equal(0, await process.WaitForExitAsync(AppRuns.ExitTimeout(rid)));
        // The 5 s is the app's promise (its host's shutdown timeout is 3 s); under qemu time means nothing.
        if (!Qemu.Emulates(rid)) Assert.InRange(stopping.Elapsed, TimeSpan.Zero, TimeSpan.FromSeconds(5));
    }
}
