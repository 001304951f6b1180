using System.Diagnostics;
using System.Globalization;
using Prewire.Amqp;
using Prewire.Benchmarks.Shared;
using Prewire.ConsumeMemory;

// Prewire.ConsumeMemory fill <amqp-uri> <queue> <size> <count>
//   declares QUEUE (classic, durable) and fills it with COUNT messages of SIZE bytes, confirmed.
// Prewire.ConsumeMemory <official|prewire|prewire-single> <amqp-uri> <queue> <count>
//   drains COUNT messages from QUEUE (prefetch 200, handled one at a time, each read and acked; prewire-single
//   is Prewire with each ack a frame of its own) and prints one line: client, messages, seconds, msg/s,
//   peak RSS, bytes allocated per message (all threads, the whole run), per message CPU time (user + system;
//   then each apart) and context switches (ProcessUse), ack frames per message.
if (args is ["fill", var fillUri, var fillQueue, var sizeText, var fillCountText])
{
    await Fill.RunAsync(AmqpUri.Parse(fillUri), fillQueue, int.Parse(sizeText, CultureInfo.InvariantCulture), int.Parse(fillCountText, CultureInfo.InvariantCulture));
    return 0;
}
if (args is not [("official" or "prewire" or "prewire-single") and var name, var uriText, var queue, var countText])
{
    Console.Error.WriteLine("usage: Prewire.ConsumeMemory fill <amqp-uri> <queue> <size> <count> | <official|prewire|prewire-single> <amqp-uri> <queue> <count>");
    return 2;
}

var count = int.Parse(countText, CultureInfo.InvariantCulture);
IConsumeClient client = name == "official" ? new OfficialConsumer() : new PrewireConsumer(coalesceAcks: name == "prewire");
var allocatedBefore = GC.GetTotalAllocatedBytes(precise: true);
var useBefore = ProcessUse.Now();
var clock = Stopwatch.StartNew();
var (checksum, ackFrames) = await client.DrainAsync(AmqpUri.Parse(uriText), queue, count);
var seconds = clock.Elapsed.TotalSeconds;
var allocated = GC.GetTotalAllocatedBytes(precise: true) - allocatedBefore;
var use = ProcessUse.Now().Since(useBefore);

Console.WriteLine(string.Create(CultureInfo.InvariantCulture,
    $"client={name} messages={count} seconds={seconds:0.000} msgPerSec={count / seconds:0} peakRssMb={use.PeakRssMb:0.0} allocatedPerMessage={(double)allocated / count:0.#} {use.PerMessage(count)} ackFramesPerMessage={(double)ackFrames / count:0.000} checksum={checksum}"));
return 0;

