using Prewire.Consumer;
using Prewire.Messaging;
using Prewire.Samples;
using Prewire.Samples.Messaging;
using Serilog.Events;

StartupClock.Start();

var app = new AppCommand("Prewire.Consumer", "Prewire consumer: consumes messages from RabbitMQ through the incoming pipeline and acknowledges each once handled.");
var broker = app.AddBroker("Queue to consume; declared if missing, with its dead-letter queue.");
var countOption = app.AddOptionalCount("--count", "Messages to handle (or dead-letter) and acknowledge before exiting (0: exit once ready); without it, consume until SIGTERM or SIGINT.", "PREWIRE_COUNT");
var prefetchOption = app.AddCount("--prefetch", "Unacknowledged deliveries the broker may send ahead, at most --count (0: no limit but --count).", "PREWIRE_PREFETCH", 100);
var concurrencyOption = app.AddCount("--concurrency", "Deliveries handled at once (1: one at a time, in queue order).", "PREWIRE_CONCURRENCY", 1);
var maxAttemptsOption = app.AddCount("--max-attempts", "Times a failing handler runs before its message is dead-lettered (at least 1).", "PREWIRE_MAX_ATTEMPTS", 3);
var poisonOption = app.AddOption("--poison", "Text that makes the handler throw, for seeing retries and the dead-letter queue at work.", "PREWIRE_POISON");
var windowOption = app.AddCount("--dedup-window", "Message ids remembered to skip redeliveries of messages already handled.", "PREWIRE_DEDUP_WINDOW", 10_000);
var probeOptions = app.AddProbes("consuming (not while the broker connection is lost and being replaced, nor once stopping)");
app.AddDescribe("incoming");
app.AddWarmupReport();
app.AddJsonReport();
app.AddHeapCheck();

return app.Run(args, async (parsed, log, cancellationToken) =>
{
    var (options, client, count) = (broker.Session(parsed, "prewire-consumer", confirms: true, parsed.GetValue(concurrencyOption)), broker.Client(parsed), parsed.GetValue(countOption));
    var (report, handled) = (new RunReport(count, "endToEnd") { HeapCheck = app.WantsHeapCheck(parsed) }, 0L);
    var (maxAttempts, recent, poison) = (Math.Max(1, parsed.GetValue(maxAttemptsOption)), new RecentMessageIds(parsed.GetValue(windowOption)), parsed.GetValue(poisonOption));
    if (app.WantsWarmupReport(parsed))
    {
        // In-process deliveries, as the transport hands them in: an id of its own (a value), headers and body, a pooled context, the app's own handler.
        var (headers, body) = (new Dictionary<string, string>(), new System.Buffers.ReadOnlySequence<byte>("warm-up message"u8.ToArray()));
        return await WarmupReport.RunAsync(() => PipelineSelection.Build<TransportReceiveContext>(SamplePipelines.Incoming(Handle, WarmupReport.NoDeadLetters, recent, maxAttempts, log)),
            () => TransportReceiveContext.Rent(Guid.NewGuid(), headers, body, cancellationToken), count ?? 0, Console.Out, handled: context => context.Return());
    }

    BrokerConnection? connection = null;
    var deadLetters = BrokerClients.DeadLetters(client, () => connection);
    var pipeline = PipelineSelection.Build<TransportReceiveContext>(SamplePipelines.Incoming(Handle, deadLetters, recent, maxAttempts, log));
    if (app.Describe(parsed, pipeline)) return ExitCodes.Success;

    var connecting = BrokerOptions.Connecting(options, log, neededBy: count > 0 ? "--count" : null);
    // A worker waits for its broker however long it is away (not ready meanwhile): exiting would only have
    // the orchestrator restart it with a growing back-off. A batch run gives up and says so.
    var reconnect = count is null ? new ReconnectPolicy { GiveUpAfter = Timeout.InfiniteTimeSpan } : null;
    connection = connecting is null ? null : await BrokerOptions.ConnectAsync(connecting, client, log, cancellationToken, reconnect);
    await using var closing = connection;
    using var probes = probeOptions.Open(parsed);
    ReadyLine.Write(Console.Out);
    report.Ready();

    if (connection is null || count == 0) return ExitCodes.Success;
    var receiver = client.CreateReceiver(connection, pipeline, (id, e) => log.Warning("Message {MessageId} failed and is rejected: {Error}", id, e.Message));
    (receiver.ConnectionLost, receiver.Consuming) = (e => log.Warning("{Error}; reconnecting, then consuming again", e.Message), probes.SetReady);
    if (count is null) log.Information("Consuming {Queue} until stopped (SIGTERM or SIGINT)", options.Queue);
    var result = await new ConsumeRun(receiver, report, log).RunAsync(count, parsed.GetValue(prefetchOption), cancellationToken);
    log.Information("Handled and acknowledged {Count}{Of:l} messages from {Queue} in {Elapsed:0} ms ({Builder} pipeline; {DeadLettered} dead-lettered, {Duplicates} duplicates skipped, {Reconnects} reconnects){Stopped}",
        result.Settled, count is { } n ? $" of {n}" : "", options.Queue, report.Elapsed.TotalMilliseconds, pipeline.Builder, result.DeadLettered, result.Duplicates, result.Reconnects,
        cancellationToken.IsCancellationRequested ? "; stopped by a signal, the rest stay queued" : "");
    report.Write(Console.Out, app.WantsJson(parsed), result.Settled, ("client", client.ToString()), ("concurrency", options.ConsumerConcurrency),
        ("deadLettered", result.DeadLettered), ("duplicates", result.Duplicates), ("rejected", result.Rejected), ("reconnects", result.Reconnects));
    return ExitCodes.Success;

    Task Handle(IncomingLogicalContext message)
    {
        if (poison is not null && ((string)message.Message).Contains(poison, StringComparison.Ordinal))
            throw new InvalidOperationException($"the text contains '{poison}' (--poison)");
        // Guarded: the arguments are read even when the level is off, and the id's text is made only when read.
        if (log.IsEnabled(LogEventLevel.Debug)) log.Debug("Handled {MessageId}: {Text}", message.MessageId, message.Message);
        if (MessageHeaders.TryGetSentAt(message.Headers, out var sentAt))
            report.Latency.Record(DateTimeOffset.UtcNow - sentAt);
        report.Done(Interlocked.Increment(ref handled));
        return Task.CompletedTask;
    }
});
