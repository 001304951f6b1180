using System.Diagnostics;
using System.Globalization;
using Prewire.Amqp;
using Prewire.Benchmarks.Shared;
using Prewire.PublishMemory;

// Prewire.PublishMemory <official|prewire> <A|B|C|D> <amqp-uri>
// A: 16 connections, 100 x 1 MiB each, no confirms.   B: one connection with 16 channels, 16
// publishers x 400 x 1 MiB, each publish awaiting its confirm.   C: as B with 5,000 x 256 B each.
// D: as C without confirms. (RabbitMQ.Client: a channel per publisher; AmqpPublisher: Channels = 16,
// which the publishers take in turn.)
// Prints one line: client, scenario, messages, seconds, msg/s, peak RSS, bytes allocated per message, and
// per message CPU time (user + system, all threads; then each apart) and context switches (ProcessUse).
if (args.Length != 3 || args[0] is not ("official" or "prewire") || args[1] is not ("A" or "B" or "C" or "D"))
{
    Console.Error.WriteLine("usage: Prewire.PublishMemory <official|prewire> <A|B|C|D> <amqp-uri>");
    return 2;
}

var scenario = Scenario.Named(args[1]);
IClient client = args[0] == "official" ? new OfficialClient() : new PrewireClient();
var uri = AmqpUri.Parse(args[2]);
var body = new byte[scenario.BodySize];
Random.Shared.NextBytes(body);

await client.ConnectAsync(uri, scenario);
// Warm-up, not measured: a tenth of the messages, so buffers and pools are filled once before counting.
var tenth = Math.Max(1, scenario.MessagesPerPublisher / 10);
await RunAsync(tenth);
// Allocated per message is marginal: what the full run allocated beyond a tenth-size run, over the
// messages between them, so per-run costs (this harness's tasks, a new pool thread) cancel out.
var allocatedTenth = await AllocatedByAsync(() => RunAsync(tenth));
var allocatedBefore = GC.GetTotalAllocatedBytes(precise: true);
var useBefore = ProcessUse.Now();
var clock = Stopwatch.StartNew();
await RunAsync(scenario.MessagesPerPublisher);
var allocated = GC.GetTotalAllocatedBytes(precise: true) - allocatedBefore;
// Fire-and-forget publishes may still be queued in the client: the run ends when all is sent.
await client.CloseAsync();
var seconds = clock.Elapsed.TotalSeconds;
var use = ProcessUse.Now().Since(useBefore);
var messages = scenario.Publishers * scenario.MessagesPerPublisher;
var allocatedPerMessage = (double)(allocated - allocatedTenth) / (messages - scenario.Publishers * tenth);

Console.WriteLine(string.Create(CultureInfo.InvariantCulture,
    $"client={args[0]} scenario={args[1]} messages={messages} seconds={seconds:0.00} msgPerSec={messages / seconds:0} peakRssMb={use.PeakRssMb:0.0} allocatedPerMessage={allocatedPerMessage:0.##} {use.PerMessage(messages)}"));
return 0;

static async Task<long> AllocatedByAsync(Func<Task> run)
{
    var before = GC.GetTotalAllocatedBytes(precise: true);
    await run();
    return GC.GetTotalAllocatedBytes(precise: true) - before;
}

Task RunAsync(int messagesPerPublisher) =>
    Task.WhenAll(Enumerable.Range(0, scenario.Publishers).Select(publisher => Task.Run(async () =>
    {
        for (var i = 0; i < messagesPerPublisher; i++) await client.PublishAsync(publisher, body);
    })));

