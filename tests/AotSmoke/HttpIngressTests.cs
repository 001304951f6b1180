using System.Net;
using System.Net.Http.Headers;
using System.Net.Sockets;
using System.Text;
using System.Text.Json;
using Prewire.Testing;

namespace Prewire.AotSmoke;

/// <summary>
/// HttpEndpoint (NativeAOT) in front of the real broker: what is posted arrives byte-exact, read by a
/// client not written here; every wrong request gets its 4xx; a broker away is 503 and not ready.
/// </summary>
public sealed class HttpIngressTests(PublishedApps published)
{
    public static TheoryData<string, string> EachWithEachClient => Rids.EachWithEachClient();

    public static TheoryData<string> HostClients => new("RabbitMQ.Client", "Prewire");

    [Theory]
    [MemberData(nameof(EachWithEachClient))]
    public async Task A_posted_body_arrives_in_the_queue_byte_exact_with_its_headers(string rid, string client)
    {
        var ct = TestContext.Current.CancellationToken;
        var queue = $"aotsmoke.http.{rid}.{Guid.NewGuid():N}";
        await using var endpoint = await StartAsync(published, rid, TestBroker.Uri.ToString(), queue, Rids.ClientArguments(client));
        // Under qemu one small request; on the host the sizes around Kestrel's and the publisher's buffers, up to the limit.
        int[] sizes = Qemu.Emulates(rid) ? [100] : [0, 100, 70_000, 1024 * 1024];
        var apps = new BrokerApps(published, rid, TestBroker.Uri.ToString());
        foreach (var size in sizes)
        {
            var body = new byte[size];
            new Random(size).NextBytes(body);
            using var content = new ByteArrayContent(body);
            content.Headers.ContentType = new MediaTypeHeaderValue("application/vnd.prewire.order+json");
            using var response = await endpoint.Http.PostAsync(new Uri("messages/order.created", UriKind.Relative), content, ct);
            Assert.True(response.StatusCode == HttpStatusCode.Accepted, $"{size} B: {(int)response.StatusCode} {await response.Content.ReadAsStringAsync(ct)}");
            var id = JsonDocument.Parse(await response.Content.ReadAsStringAsync(ct)).RootElement.GetProperty("id").GetString();

            var message = await apps.GetWithPikaAsync(queue);
            Assert.NotNull(message);
            Assert.Equal(body, message.Body);
            Assert.Equal((id, id, "order.created", "application/vnd.prewire.order+json"),
                (message.MessageId, message.Headers["prewire.message-id"], message.Headers["prewire.message-type"], message.Headers["prewire.content-type"]));
            Assert.True(DateTimeOffset.TryParse(message.Headers["prewire.sent-at"], out var sentAt) && sentAt > DateTimeOffset.UtcNow.AddMinutes(-5));
        }
    }

    [Fact]
    public async Task With_the_zero_copy_client_a_64_KiB_body_costs_no_more_allocation_per_request_than_256_B()
    {
        var ct = TestContext.Current.CancellationToken;
        var queue = $"aotsmoke.http.alloc.{Guid.NewGuid():N}";
        await using var endpoint = await StartAsync(published, Repo.HostRid, TestBroker.Uri.ToString(), queue, []);
        // Process-wide bytes allocated (the runtime's own meter, on /metrics) over 400 requests of each
        // size, one after another on one connection: a body copied into an array on its way would add
        // at least its 64 KiB to every request.
        var small = await AllocatedPerRequestAsync(256);
        var large = await AllocatedPerRequestAsync(64 * 1024);
        Assert.True(large - small < 8 * 1024, $"{large:0} B per 64 KiB request against {small:0} B per 256 B one");
        TestContext.Current.TestOutputHelper?.WriteLine($"allocated per request: {small:0} B (256 B body), {large:0} B (64 KiB body)");

        async Task<double> AllocatedPerRequestAsync(int size)
        {
            var body = new byte[size];
            for (var i = 0; i < 100; i++) await PostAsync(body); // warm: pools, tiered code, the connection
            var before = await AllocatedAsync();
            for (var i = 0; i < 400; i++) await PostAsync(body);
            return (await AllocatedAsync() - before) / 400.0;
        }

        async Task PostAsync(byte[] body)
        {
            using var content = new ByteArrayContent(body);
            using var response = await endpoint.Http.PostAsync(new Uri("messages/sized", UriKind.Relative), content, ct);
            Assert.Equal(HttpStatusCode.Accepted, response.StatusCode);
        }

        async Task<long> AllocatedAsync()
        {
            var metrics = await endpoint.Http.GetStringAsync(new Uri("metrics", UriKind.Relative), ct);
            var line = metrics.Split('\n').Single(l => l.StartsWith("dotnet_gc_heap_total_allocated_bytes_total", StringComparison.Ordinal));
            return long.Parse(line.Split(' ')[^1], System.Globalization.CultureInfo.InvariantCulture);
        }
    }

    [Fact]
    public async Task Each_wrong_request_gets_its_4xx_as_problem_json_without_a_stack_trace()
    {
        var ct = TestContext.Current.CancellationToken;
        var queue = $"aotsmoke.http.bad.{Guid.NewGuid():N}";
        await using var endpoint = await StartAsync(published, Repo.HostRid, TestBroker.Uri.ToString(), queue, ["--max-body-size", "1000"]);

        await AssertProblemAsync(HttpStatusCode.BadRequest, Post("messages/no%20spaces", new ByteArrayContent([1])));
        await AssertProblemAsync(HttpStatusCode.BadRequest, Post($"messages/{new string('a', 129)}", new ByteArrayContent([1])));
        await AssertProblemAsync(HttpStatusCode.RequestEntityTooLarge, Post("messages/big", new ByteArrayContent(new byte[1001])));
        // Chunked, so the limit is found while reading, not from Content-Length.
        await AssertProblemAsync(HttpStatusCode.RequestEntityTooLarge, Post("messages/big", new StreamContent(new MemoryStream(new byte[5000])) { Headers = { ContentLength = null } }, chunked: true));
        var gzipped = new ByteArrayContent([1]);
        gzipped.Headers.ContentEncoding.Add("gzip");
        await AssertProblemAsync(HttpStatusCode.UnsupportedMediaType, Post("messages/zipped", gzipped));
        var badType = new ByteArrayContent([1]);
        Assert.True(badType.Headers.TryAddWithoutValidation("Content-Type", "not a media type"));
        await AssertProblemAsync(HttpStatusCode.BadRequest, Post("messages/typed", badType));

        using var wrongMethod = await endpoint.Http.GetAsync(new Uri("messages/x", UriKind.Relative), ct);
        Assert.Equal(HttpStatusCode.MethodNotAllowed, wrongMethod.StatusCode);
        // POSTs the endpoint does not take ahead of routing go on to it: routing's 404 for any other path.
        foreach (var path in new[] { "nowhere", "messages/", "messages/a/b" })
        {
            using var nowhere = await endpoint.Http.PostAsync(new Uri(path, UriKind.Relative), new ByteArrayContent([1]), ct);
            Assert.True(nowhere.StatusCode == HttpStatusCode.NotFound, $"POST /{path}: {(int)nowhere.StatusCode}");
        }
        // None of them reached the queue, and /metrics counted each by its reason.
        Assert.Null(await new BrokerApps(published, Repo.HostRid, TestBroker.Uri.ToString()).GetWithPikaAsync(queue));
        var metrics = await endpoint.Http.GetStringAsync(new Uri("metrics", UriKind.Relative), ct);
        foreach (var (reason, count) in new[] { ("invalid-type", 2), ("body-too-large", 2), ("content-encoding", 1), ("content-type", 1) })
            Assert.Contains($"prewire_ingress_rejected_total{{otel_scope_name=\"Prewire.HttpEndpoint\",reason=\"{reason}\"}} {count}", metrics, StringComparison.Ordinal);
        Assert.DoesNotContain("prewire_ingress_accepted_total", metrics, StringComparison.Ordinal);

        async Task<HttpResponseMessage> Post(string path, HttpContent content, bool chunked = false)
        {
            using var request = new HttpRequestMessage(HttpMethod.Post, new Uri(path, UriKind.Relative)) { Content = content };
            request.Headers.TransferEncodingChunked = chunked;
            return await endpoint.Http.SendAsync(request, ct);
        }

        async Task AssertProblemAsync(HttpStatusCode expected, Task<HttpResponseMessage> sending)
        {
            using var response = await sending;
            var text = await response.Content.ReadAsStringAsync(ct);
            Assert.True(response.StatusCode == expected, $"expected {(int)expected}, got {(int)response.StatusCode}: {text}");
            Assert.Equal("application/problem+json", response.Content.Headers.ContentType?.MediaType);
            Assert.Equal((int)expected, JsonDocument.Parse(text).RootElement.GetProperty("status").GetInt32());
            Assert.DoesNotContain("   at ", text, StringComparison.Ordinal);
        }
    }

    [Fact]
    public async Task Malformed_HTTP_is_closed_or_answered_4xx_and_the_server_keeps_serving()
    {
        var ct = TestContext.Current.CancellationToken;
        // With a broker: a request is read only once the broker can take it (503 otherwise).
        await using var endpoint = await StartAsync(published, Repo.HostRid, TestBroker.Uri.ToString(), $"aotsmoke.http.malformed.{Guid.NewGuid():N}", []);
        var port = endpoint.Address.Port;

        Assert.StartsWith("HTTP/1.1 400", await ExchangeAsync(port, "GARBAGE\r\n\r\n"u8.ToArray(), ct), StringComparison.Ordinal);
        Assert.StartsWith("HTTP/1.1 431", await ExchangeAsync(port, Encoding.ASCII.GetBytes($"GET /health/live HTTP/1.1\r\nHost: x\r\nX-Big: {new string('a', 100_000)}\r\n\r\n"), ct), StringComparison.Ordinal);
        Assert.StartsWith("HTTP/1.1 400", await ExchangeAsync(port, "POST /messages/x HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nZZ\r\nhello\r\n0\r\n\r\n"u8.ToArray(), ct), StringComparison.Ordinal);
        // A body cut short by the client closing: nothing to answer, and nothing breaks.
        await ExchangeAsync(port, "POST /messages/x HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\nonly this"u8.ToArray(), ct, closeAfterSend: true);
        // Headers that never end: closed by the server's header timeout (10 s), not left open.
        var slow = await ExchangeAsync(port, "GET /health/live HTTP/1.1\r\nHost: x\r\nX-Slow: "u8.ToArray(), ct, readTimeout: TimeSpan.FromSeconds(30));
        Assert.True(slow.Length == 0 || slow.StartsWith("HTTP/1.1 408", StringComparison.Ordinal), slow);

        // 1,000 connections opened and dropped, 100 at a time.
        for (var batch = 0; batch < 10; batch++)
        {
            var sockets = new List<Socket>();
            for (var i = 0; i < 100; i++)
            {
                var socket = new Socket(SocketType.Stream, ProtocolType.Tcp);
                await socket.ConnectAsync(IPAddress.Loopback, port, ct);
                sockets.Add(socket);
            }
            foreach (var socket in sockets) socket.Dispose();
        }

        using var live = await endpoint.Http.GetAsync(new Uri("health/live", UriKind.Relative), ct);
        Assert.Equal(HttpStatusCode.OK, live.StatusCode);
        Assert.False(endpoint.Process.HasExited);
    }

    [Fact]
    public async Task A_bad_address_or_one_in_use_is_one_line_and_no_stack_trace()
    {
        var build = await published.GetSucceededAsync(App.HttpEndpoint, Repo.HostRid);
        await using (var notAUrl = AppProcess.Start(build.ExecutablePath, ["--urls", "notaurl"], rid: Repo.HostRid))
        {
            Assert.Equal(2, await notAUrl.WaitForExitAsync(TimeSpan.FromSeconds(30)));
            Assert.StartsWith("error: invalid address 'notaurl' in --urls", notAUrl.Stderr, StringComparison.Ordinal);
            Assert.Single(notAUrl.Stderr.Trim().Split('\n'));
        }

        using var taken = new TcpListener(IPAddress.Loopback, 0);
        taken.Start();
        var port = ((IPEndPoint)taken.LocalEndpoint).Port;
        await using var inUse = AppProcess.Start(build.ExecutablePath, ["--urls", $"http://127.0.0.1:{port}"], rid: Repo.HostRid);
        Assert.Equal(1, await inUse.WaitForExitAsync(TimeSpan.FromSeconds(30)));
        Assert.Equal($"error: cannot listen: Failed to bind to address http://127.0.0.1:{port}: address already in use", inUse.Stderr.Trim());
        Assert.DoesNotContain("   at ", inUse.Stdout, StringComparison.Ordinal);
    }

    internal static async Task<Endpoint> StartAsync(PublishedApps published, string rid, string? brokerUri, string queue, string[] args, IReadOnlyDictionary<string, string>? environment = null)
    {
        var build = await published.GetSucceededAsync(App.HttpEndpoint, rid, PublishMode.Aot, AppClient.BuildFor(args));
        var address = new Uri($"http://127.0.0.1:{FreePort.Next()}/");
        string[] broker = brokerUri is null ? [] : ["--uri", brokerUri, "--queue", queue];
        var process = AppProcess.Start(build.ExecutablePath, ["--urls", address.ToString().TrimEnd('/'), .. broker, .. args], environment, rid: rid);
        var endpoint = new Endpoint(process, address);
        await process.WaitForReadyAsync(AppRuns.ReadyTimeout(rid));
        if (brokerUri is not null) await endpoint.WaitForReadinessAsync(HttpStatusCode.OK, TimeSpan.FromSeconds(30));
        return endpoint;
    }

    private static async Task<string> ExchangeAsync(int port, byte[] request, CancellationToken ct, bool closeAfterSend = false, TimeSpan? readTimeout = null)
    {
        using var socket = new Socket(SocketType.Stream, ProtocolType.Tcp);
        await socket.ConnectAsync(IPAddress.Loopback, port, ct);
        await socket.SendAsync(request, ct);
        if (closeAfterSend) return "";
        using var timeout = CancellationTokenSource.CreateLinkedTokenSource(ct);
        timeout.CancelAfter(readTimeout ?? TimeSpan.FromSeconds(10));
        var buffer = new byte[4096];
        var received = await socket.ReceiveAsync(buffer, timeout.Token);
        return Encoding.ASCII.GetString(buffer, 0, received);
    }

    /// <summary>A running endpoint and a client for it.</summary>
    internal sealed class Endpoint(AppProcess process, Uri address) : IAsyncDisposable
    {
        public AppProcess Process => process;

        public Uri Address => address;

        public HttpClient Http { get; } = new() { BaseAddress = address, Timeout = TimeSpan.FromSeconds(30) };

        /// <summary>Polls <c>/health/ready</c> until it answers <paramref name="expected"/>.</summary>
        public async Task WaitForReadinessAsync(HttpStatusCode expected, TimeSpan timeout)
        {
            var deadline = DateTime.UtcNow + timeout;
            while (true)
            {
                using var response = await Http.GetAsync(new Uri("health/ready", UriKind.Relative));
                if (response.StatusCode == expected) return;
                Assert.True(DateTime.UtcNow < deadline, $"/health/ready still {(int)response.StatusCode} after {timeout.TotalSeconds:0} s: {await response.Content.ReadAsStringAsync()}");
                await Task.Delay(100);
            }
        }

        public async ValueTask DisposeAsync()
        {
            Http.Dispose();
            await process.DisposeAsync();
        }
    }
}
