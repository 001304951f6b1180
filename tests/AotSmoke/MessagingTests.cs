using System.Text;
using Prewire.Testing;

namespace Prewire.AotSmoke;

/// <summary>
/// Publisher → broker → Consumer in the NativeAOT binaries on each RID with each client, and what a
/// client not written here (Debian's python3-pika) makes of them and gives them: every message
/// arrives, poison and malformed ones end in the dead-letter queue with their reasons.
/// </summary>
public sealed class MessagingTests(PublishedApps published)
{
    public static TheoryData<string, string> EachWithEachClient => Rids.EachWithEachClient();

    public static TheoryData<string> EachRid => Rids.Each();

    [Theory]
    [MemberData(nameof(EachWithEachClient))]
    public Task Every_message_published_is_consumed_once_and_the_queue_is_left_empty(string rid, string client) =>
        EveryMessageOnceAsync(Apps(rid), Queue("all", rid), Rids.Scaled(rid, 10_000), client, consumeWith: []);

    // x64 in full, arm64 under qemu a smoke run (a quarter, Rids.Scaled): each client publishes and
    // consumes over TLS; pika counts what is left over the plain port.
    [Theory]
    [MemberData(nameof(EachWithEachClient))]
    public Task Over_amqps_each_client_publishes_and_consumes_every_message_once(string rid, string client) =>
        EveryMessageOnceAsync(BrokerApps.OverTls(published, rid, TestBroker.Node), Queue("tls", rid), Rids.Scaled(rid, 10_000), client, consumeWith: Rids.ClientArguments(client));

    private static async Task EveryMessageOnceAsync(BrokerApps apps, string queue, int count, string client, string[] consumeWith)
    {
        var report = await apps.PublishAsync(queue, count, ["--concurrency", "16", .. Rids.ClientArguments(client)]);
        Assert.Contains($"(prewired pipeline, {client}; 0 published again", report, StringComparison.Ordinal);

        // The queue holds only these messages, each with an id of its own; with the default window
        // (10,000 ids) a copy would be skipped and counted, so N handled and 0 skipped is every id once.
        var consumed = await apps.ConsumeAsync(queue, count, consumeWith);
        Assert.Equal((count, 0, 0), (BrokerApps.Acknowledged(consumed, count), BrokerApps.ConsumerReported(consumed, "duplicates"), BrokerApps.ConsumerReported(consumed, "deadLettered")));
        Assert.Null(await apps.GetWithPikaAsync(queue));
    }

    [Theory]
    [MemberData(nameof(EachRid))]
    public async Task Consuming_concurrently_takes_exactly_the_count_and_leaves_the_rest_queued(string rid)
    {
        var (apps, queue, count) = (Apps(rid), Queue("concurrent", rid), Rids.Scaled(rid, 3_000));
        await apps.PublishAsync(queue, count, ["--concurrency", "16"]);

        // A third with 8 handlers at once and a prefetch window wider than what is left to take at the
        // end: deliveries past the count go back to the queue, and a second run takes exactly the rest.
        var first = await apps.ConsumeAsync(queue, count / 3, "--concurrency", "8", "--prefetch", "64");
        var rest = await apps.ConsumeAsync(queue, count - count / 3, "--concurrency", "8");
        Assert.Equal((count / 3, 0), (BrokerApps.Acknowledged(first, count / 3), BrokerApps.ConsumerReported(first, "duplicates")));
        Assert.Equal((count - count / 3, 0), (BrokerApps.Acknowledged(rest, count - count / 3), BrokerApps.ConsumerReported(rest, "duplicates")));
        Assert.Null(await apps.GetWithPikaAsync(queue));
    }

    [Theory]
    [MemberData(nameof(EachWithEachClient))]
    public async Task What_the_publisher_sends_is_read_byte_exact_with_its_headers_by_another_client(string rid, string client)
    {
        var (apps, queue) = (Apps(rid), Queue("interop-out", rid));
        await apps.PublishAsync(queue, 1, Rids.ClientArguments(client));

        var message = await apps.GetWithPikaAsync(queue);
        Assert.NotNull(message);
        Assert.Equal("message 1 of 1"u8.ToArray(), message.Body);
        Assert.Equal(message.MessageId, message.Headers["prewire.message-id"]);
        Assert.Equal(32, message.MessageId!.Length);
        Assert.Equal("text/plain; charset=utf-8", message.Headers["prewire.content-type"]);
        Assert.True(DateTimeOffset.TryParse(message.Headers["prewire.sent-at"], out var sentAt) && sentAt > DateTimeOffset.UtcNow.AddMinutes(-5));
    }

    [Theory]
    [MemberData(nameof(EachRid))]
    public async Task What_another_client_publishes_is_consumed_and_a_message_without_an_id_too(string rid)
    {
        var (apps, queue) = (Apps(rid), Queue("interop-in", rid));
        await apps.ConsumeAsync(queue, 0);
        await apps.PublishWithPikaAsync(queue, Encoding.UTF8.GetBytes("from pika"), "pika-1", "prewire.content-type=text/plain; charset=utf-8");
        await apps.PublishWithPikaAsync(queue, Encoding.UTF8.GetBytes("no id, no headers"), messageId: null);

        var consumed = await apps.ConsumeAsync(queue, 2, "--log-level", "Debug");
        Assert.Equal(2, BrokerApps.Acknowledged(consumed, 2));
        Assert.Contains("Handled pika-1: from pika", consumed, StringComparison.Ordinal);
        Assert.Contains("Handled : no id, no headers", consumed, StringComparison.Ordinal);
    }

    [Theory]
    [MemberData(nameof(EachRid))]
    public async Task Poison_is_dead_lettered_after_max_attempts_and_a_malformed_body_at_once_each_with_its_reason(string rid)
    {
        var (apps, queue) = (Apps(rid), Queue("poison", rid));
        await apps.PublishAsync(queue, 3);
        byte[] notUtf8 = [0x66, 0xC3, 0x28, 0xFF];
        await apps.PublishWithPikaAsync(queue, notUtf8, "malformed-1");

        var consumed = await apps.ConsumeAsync(queue, 4, "--poison", "message 2 of", "--max-attempts", "3");
        Assert.Equal((4, 2), (BrokerApps.Acknowledged(consumed, 4), BrokerApps.ConsumerReported(consumed, "deadLettered")));

        var deadLetters = new List<ForeignMessage>();
        while (await apps.GetWithPikaAsync($"{queue}.dead-letter") is { } message) deadLetters.Add(message);
        Assert.Equal(2, deadLetters.Count);

        var poison = Assert.Single(deadLetters, m => m.Headers["prewire.dead-letter.reason"] == "failed");
        Assert.Equal("message 2 of 3"u8.ToArray(), poison.Body);
        Assert.Equal(("3", "System.InvalidOperationException", "the text contains 'message 2 of' (--poison)", queue),
            (poison.Headers["prewire.dead-letter.attempts"], poison.Headers["prewire.dead-letter.exception-type"], poison.Headers["prewire.dead-letter.exception-message"], poison.Headers["prewire.dead-letter.queue"]));
        Assert.Equal(poison.MessageId, poison.Headers["prewire.message-id"]);

        var malformed = Assert.Single(deadLetters, m => m.Headers["prewire.dead-letter.reason"] == "malformed");
        Assert.Equal(notUtf8, malformed.Body);
        Assert.Equal(("malformed-1", "0", "the body is not valid UTF-8"),
            (malformed.MessageId, malformed.Headers["prewire.dead-letter.attempts"], malformed.Headers["prewire.dead-letter.exception-message"]));
    }

    [Theory]
    [MemberData(nameof(EachRid))]
    public async Task With_json_stdout_is_the_ready_line_and_one_report_object_and_the_log_goes_to_stderr(string rid)
    {
        var (apps, queue, count) = (Apps(rid), Queue("json", rid), Rids.Scaled(rid, 2_000));
        await using var consume = await apps.StartAsync(App.Consumer, queue, count, "--json");
        await consume.WaitForReadyAsync(AppRuns.ReadyTimeout(rid));
        await using var publish = await apps.StartAsync(App.Publisher, queue, count, "--json", "--concurrency", "4");
        await BrokerApps.AssertExitsAsync(publish, 0, TimeSpan.FromMinutes(3));
        await BrokerApps.AssertExitsAsync(consume, 0, TimeSpan.FromMinutes(3));

        var published = Report(publish.Stdout);
        Assert.Equal((count, "Prewire", 0, 0), (published.GetProperty("messages").GetInt32(), published.GetProperty("client").GetString(),
            published.GetProperty("refused").GetInt32(), published.GetProperty("republished").GetInt32()));
        var consumed = Report(consume.Stdout);
        Assert.Equal((count, 0, 0), (consumed.GetProperty("messages").GetInt32(), consumed.GetProperty("deadLettered").GetInt32(), consumed.GetProperty("duplicates").GetInt32()));
        foreach (var (report, latency) in new[] { (published, "confirmP99Ms"), (consumed, "endToEndP99Ms") })
        {
            foreach (var figure in new[] { "msgsPerSecond", latency, "bytesPerMessage", "peakRssMb", "startupMs" })
                Assert.True(report.GetProperty(figure).GetDouble() > 0, $"{figure}: {report}");
        }
        Assert.Contains("Published", publish.Stderr, StringComparison.Ordinal);
        Assert.Contains("Handled and acknowledged", consume.Stderr, StringComparison.Ordinal);

        static System.Text.Json.JsonElement Report(string stdout)
        {
            var lines = stdout.Split('\n', StringSplitOptions.RemoveEmptyEntries);
            Assert.Equal(2, lines.Length);
            Assert.StartsWith("ready in ", lines[0], StringComparison.Ordinal);
            return System.Text.Json.JsonDocument.Parse(lines[1]).RootElement.Clone();
        }
    }

    // The demo's main job (build/Harness/Demo.cs): 20,000 messages, 16 in flight, the Consumer running while
    // the Publisher publishes, each on Prewire's client as a plain build has it; process-wide bytes per
    // message after the first tenth. Measured at 69.7 and 1.0 B (linux-x64): the Consumer's 56 B
    // in-process path (AppAllocationTests') and about 14 B of the client's reads and settlements (157.7
    // while the id was read as a string: a bound that catches it coming back).
    [Fact]
    public async Task Over_the_demos_run_the_Consumer_allocates_at_most_100_B_and_the_Publisher_50_B_per_message()
    {
        var (apps, queue, count) = (Apps(Repo.HostRid), Queue("demo", Repo.HostRid), 20_000);
        await using var consume = await apps.StartAsync(App.Consumer, queue, count, "--json");
        await consume.WaitForReadyAsync(AppRuns.ReadyTimeout(Repo.HostRid));
        await using var publish = await apps.StartAsync(App.Publisher, queue, count, "--json", "--concurrency", "16");
        await BrokerApps.AssertExitsAsync(publish, 0, TimeSpan.FromMinutes(3));
        await BrokerApps.AssertExitsAsync(consume, 0, TimeSpan.FromMinutes(3));

        var (published, consumed) = (Last(publish.Stdout), Last(consume.Stdout));
        Assert.Equal((count, count), (published.GetProperty("messages").GetInt32(), consumed.GetProperty("messages").GetInt32()));
        var (publisherBytes, consumerBytes) = (published.GetProperty("bytesPerMessage").GetDouble(), consumed.GetProperty("bytesPerMessage").GetDouble());
        TestContext.Current.TestOutputHelper?.WriteLine($"B/message: Publisher {publisherBytes}, Consumer {consumerBytes}");
        Assert.True(consumerBytes <= 100, $"the Consumer allocated {consumerBytes} B per message; at most 100");
        Assert.True(publisherBytes <= 50, $"the Publisher allocated {publisherBytes} B per message; at most 50");

        static System.Text.Json.JsonElement Last(string stdout) =>
            System.Text.Json.JsonDocument.Parse(stdout.Split('\n', StringSplitOptions.RemoveEmptyEntries)[^1]).RootElement.Clone();
    }

    // A 64 KiB body is a 128 KiB string. On the large object heap, whose ~3 MB budget set off a full
    // collection every ~23 such messages, after which the GC handed the heap's end back to the OS, each
    // string landed on fresh pages: 62,500 faults over 2,000 messages, 31 each. In generation 0 (the
    // Consumer's LOH threshold, Prewire.Consumer.csproj) the same run took 2,400, its start included.
    [Fact]
    public async Task Draining_64_KiB_messages_the_Consumer_faults_in_fresh_pages_for_none_of_them()
    {
        Assert.True(ResourceUse.Measures(Repo.HostRid), $"GNU time ({ResourceUse.GnuTime}) is needed; build/bootstrap.sh installs it");
        var (queue, count, faults) = (Queue("large", Repo.HostRid), 1_000, Path.GetTempFileName());
        try
        {
            await Apps(Repo.HostRid).PublishAsync(queue, count, "--concurrency", "16", "--size", "65536");
            var timed = new BrokerApps(published, Repo.HostRid, TestBroker.Uri.ToString()) { Launcher = ResourceUse.Launcher(faults) };
            var consumed = await timed.ConsumeAsync(queue, count);
            Assert.Equal(count, BrokerApps.Acknowledged(consumed, count));
            await timed.AssertQueuesEmptyAsync(queue);

            var minor = ResourceUse.Read(File.ReadAllText(faults)).MinorFaults;
            TestContext.Current.TestOutputHelper?.WriteLine($"{minor:N0} minor faults over {count:N0} messages of 64 KiB, start included");
            // A quarter of the 32 pages each string spans: the start's ~1,000 and the heap's growth fit well under.
            Assert.True(minor < 8L * count, $"the Consumer took {minor:N0} minor page faults over {count:N0} messages of 64 KiB ({(double)minor / count:0.#} each); fewer than 8 each expected");
        }
        finally
        {
            File.Delete(faults);
        }
    }

    private BrokerApps Apps(string rid) => new(published, rid, TestBroker.Uri.ToString());

    private static string Queue(string test, string rid) => $"aotsmoke.{test}.{rid}.{Guid.NewGuid():N}";
}
