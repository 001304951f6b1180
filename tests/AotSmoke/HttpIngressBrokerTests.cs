using System.Collections.Concurrent;
using System.Diagnostics;
using System.Net;
using System.Text.Json;
using Prewire.Testing;

namespace Prewire.AotSmoke;

/// <summary>
/// HttpEndpoint (NativeAOT, this host) while its broker goes away, and while it is stopped under load:
/// 503 and not ready while the broker is away, 202 again once it is back; a SIGTERM answers what is in
/// flight and every 202 is a message in the queue.
/// </summary>
public sealed class HttpIngressBrokerTests(PublishedApps published, OwnBroker broker) : IClassFixture<OwnBroker>
{
    public static TheoryData<string> Clients => new("RabbitMQ.Client", "Prewire");

    [Theory]
    [MemberData(nameof(Clients))]
    public async Task Broker_away_is_503_and_not_ready_then_202_once_it_is_back(string client)
    {
        var ct = TestContext.Current.CancellationToken;
        var queue = $"aotsmoke.http.away.{Guid.NewGuid():N}";
        await using var endpoint = await HttpIngressTests.StartAsync(published, Repo.HostRid, broker.Node.Uri.ToString(), queue, Rids.ClientArguments(client));
        Assert.Equal(HttpStatusCode.Accepted, await PostAsync(endpoint, ct));

        await broker.Node.CtlAsync("stop_app");
        try
        {
            await endpoint.WaitForReadinessAsync(HttpStatusCode.ServiceUnavailable, TimeSpan.FromSeconds(15));
            using var content = new ByteArrayContent("while away"u8.ToArray());
            using var away = await endpoint.Http.PostAsync(new Uri("messages/note", UriKind.Relative), content, ct);
            Assert.Equal(HttpStatusCode.ServiceUnavailable, away.StatusCode);
            Assert.Equal("application/problem+json", away.Content.Headers.ContentType?.MediaType);
        }
        finally
        {
            await broker.Node.CtlAsync("start_app");
        }

        await endpoint.WaitForReadinessAsync(HttpStatusCode.OK, TimeSpan.FromSeconds(60));
        Assert.Equal(HttpStatusCode.Accepted, await PostAsync(endpoint, ct));
        Assert.Contains("Reconnected to", endpoint.Process.Stdout, StringComparison.Ordinal);
    }

    [Fact]
    public async Task SIGTERM_under_load_exits_0_within_5_s_and_every_202_is_in_the_queue()
    {
        var ct = TestContext.Current.CancellationToken;
        var queue = $"aotsmoke.http.term.{Guid.NewGuid():N}";
        var endpoint = await HttpIngressTests.StartAsync(published, Repo.HostRid, broker.Node.Uri.ToString(), queue, []);
        var accepted = new ConcurrentBag<string>();
        var answered = 0;
        using var stop = new CancellationTokenSource();
        // 16 clients posting until the server goes: each answer counted, each 202's id kept.
        var clients = Enumerable.Range(0, 16).Select(_ => Task.Run(async () =>
        {
            while (!stop.IsCancellationRequested)
            {
                try
                {
                    using var content = new StringContent(new string('a', 256), System.Text.Encoding.UTF8, "text/plain");
                    using var response = await endpoint.Http.PostAsync(new Uri("messages/load", UriKind.Relative), content, CancellationToken.None);
                    Interlocked.Increment(ref answered);
                    if (response.StatusCode == HttpStatusCode.Accepted)
                        accepted.Add(JsonDocument.Parse(await response.Content.ReadAsStringAsync(CancellationToken.None)).RootElement.GetProperty("id").GetString()!);
                }
                catch (HttpRequestException)
                {
                    // Refused or reset once the server stopped listening: not a 202, nothing promised.
                    await Task.Delay(10, CancellationToken.None);
                }
            }
        }, ct)).ToArray();

        await Task.Delay(2_000, ct);
        var stopping = Stopwatch.StartNew();
        endpoint.Process.Terminate();
        Assert.Equal(0, await endpoint.Process.WaitForExitAsync(TimeSpan.FromSeconds(10)));
        Assert.InRange(stopping.Elapsed, TimeSpan.Zero, TimeSpan.FromSeconds(5));
        await stop.CancelAsync();
        await Task.WhenAll(clients);
        await endpoint.DisposeAsync();
        Assert.True(accepted.Count > 100, $"only {accepted.Count} of {answered} answered 202 before the stop");

        // Every id answered 202 is in the queue. The Consumer takes as many; a publish confirmed whose
        // answer did not reach its client may be there too (at least once), read after it with pika.
        var apps = new BrokerApps(published, Repo.HostRid, broker.Node.Uri.ToString());
        var consumed = await apps.ConsumeAsync(queue, accepted.Count, "--log-level", "Debug");
        Assert.Equal(accepted.Count, BrokerApps.Acknowledged(consumed, accepted.Count));
        var inQueue = BrokerApps.HandledIds(consumed).ToHashSet();
        while (await apps.GetWithPikaAsync(queue) is { } extra) inQueue.Add(extra.MessageId!);
        Assert.DoesNotContain(accepted, id => !inQueue.Contains(id));
    }

    private static async Task<HttpStatusCode> PostAsync(HttpIngressTests.Endpoint endpoint, CancellationToken ct)
    {
        using var content = new ByteArrayContent("hello"u8.ToArray());
        using var response = await endpoint.Http.PostAsync(new Uri("messages/note", UriKind.Relative), content, ct);
        return response.StatusCode;
    }
}
