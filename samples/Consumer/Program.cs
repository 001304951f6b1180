using System.Diagnostics;
using Prewire.Messaging;
using Prewire.RabbitMQ;
using Prewire.Samples;
using Prewire.Samples.Messaging;

StartupClock.Start();

var app = new AppCommand("Prewire.Consumer", "Prewire consumer: consumes messages from RabbitMQ through the incoming pipeline and acknowledges them.");
var queueOption = app.AddBroker("Queue to consume; declared if missing.");
var countOption = app.AddCount("--count", "Messages to handle and acknowledge before exiting (0: exit once ready).", "PREWIRE_COUNT", 0);
var prefetchOption = app.AddCount("--prefetch", "Unacknowledged deliveries the broker may send ahead, at most --count (0: no limit but --count).", "PREWIRE_PREFETCH", 100);
app.AddDescribe("incoming");
app.AddWarmupReport();

return app.Run(args, async (parsed, log, cancellationToken) =>
{
    var (queue, count) = (parsed.GetValue(queueOption)!, parsed.GetValue(countOption));
    if (app.WantsWarmupReport(parsed))
    {
        // In-process deliveries, as the transport hands them in: its id, headers and body, the app's own handler.
        var (headers, body) = (new Dictionary<string, string>(), "warm-up message"u8.ToArray());
        return await WarmupReport.RunAsync(() => PipelineSelection.Build<TransportReceiveContext>(SamplePipelines.Incoming(Handle)),
            () => new TransportReceiveContext("warm-up", headers, body, cancellationToken), count, Console.Out);
    }
    var pipeline = PipelineSelection.Build<TransportReceiveContext>(SamplePipelines.Incoming(Handle));
    if (app.Describe(parsed, pipeline)) return ExitCodes.Success;

    var uri = app.GetBrokerUri(parsed, log, neededBy: count > 0 ? "--count" : null);
    await using var session = uri is null ? null
        : await BrokerSession.OpenAsync(new() { Uri = uri, Queue = queue, ClientName = "prewire-consumer" }, cancellationToken);
    if (session is not null) log.Information("Connected to {Broker} as {Client}", uri, session.Options.ClientName);
    ReadyLine.Write(Console.Out);

    if (session is null || count == 0) return ExitCodes.Success;
    var clock = Stopwatch.StartNew();
    var receiver = new RabbitMqReceiver(session, pipeline, (id, e) => log.Warning("Message {MessageId} failed and is rejected: {Error}", id, e.Message));
    var handled = await receiver.ReceiveAsync(count, (ushort)Math.Min(parsed.GetValue(prefetchOption), ushort.MaxValue), cancellationToken);
    log.Information("Handled and acknowledged {Count} of {Requested} messages from {Queue} in {Elapsed:0} ms ({Builder} pipeline){Stopped}",
        handled, count, queue, clock.Elapsed.TotalMilliseconds, pipeline.Builder, cancellationToken.IsCancellationRequested ? "; stopped by a signal, the rest stay queued" : "");
    return ExitCodes.Success;

    Task Handle(IncomingLogicalContext message)
    {
        log.Debug("Handled {MessageId}: {Text}", message.MessageId, message.Message);
        return Task.CompletedTask;
    }
});
