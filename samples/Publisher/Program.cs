using Prewire.Messaging;
using Prewire.Publisher;
using Prewire.Samples;
using Prewire.Samples.Messaging;

StartupClock.Start();

var app = new AppCommand("Prewire.Publisher", "Prewire publisher: publishes messages to RabbitMQ through the outgoing pipeline, each confirmed by the broker.");
var broker = app.AddBroker("Queue the messages go to; declared if missing, with its dead-letter queue.");
var countOption = app.AddCount("--count", "Messages to publish; a message whose connection is lost is published again on the next one.", "PREWIRE_COUNT", 0);
var concurrencyOption = app.AddCount("--concurrency", "Publishes awaiting their confirms at once.", "PREWIRE_CONCURRENCY", 1);
var sizeOption = app.AddCount("--size", "Body bytes: the message's text padded with '.' to this size (0: the text alone).", "PREWIRE_SIZE", 0);
var rateOption = app.AddCount("--rate", "Messages per second at most (0: as fast as the confirms come).", "PREWIRE_RATE", 0);
app.AddDescribe("outgoing");
app.AddWarmupReport();
app.AddJsonReport();
app.AddHeapCheck();

return app.Run(args, async (parsed, log, cancellationToken) =>
{
    var (options, client, count) = (broker.Session(parsed, "prewire-publisher", confirms: true), broker.Client(parsed), parsed.GetValue(countOption));
    await using var dispatch = client.CreateDispatch();
    var route = new Route(options.Exchange, options.RoutingKey);
    if (app.WantsWarmupReport(parsed))
    {
        // Through the broker when given one, else to an in-process sink; one text length, so every message
        // costs the same. Its stdout is the one JSON line.
        log = Serilog.Core.Logger.None;
        await using var connected = await ConnectAsync(BrokerOptions.Connecting(options, log, neededBy: null));
        return await WarmupReport.RunAsync(() => PipelineSelection.Build<OutgoingLogicalContext>(SamplePipelines.Outgoing(route, connected is null ? new WarmupReport.Sink<DispatchContext>() : dispatch)),
            () => OutgoingLogicalContext.Rent(Guid.NewGuid(), "warm-up message", cancellationToken), count, Console.Out);
    }
    var pipeline = PipelineSelection.Build<OutgoingLogicalContext>(SamplePipelines.Outgoing(route, dispatch));
    if (app.Describe(parsed, pipeline)) return ExitCodes.Success;

    await using var connection = await ConnectAsync(BrokerOptions.Connecting(options, log, neededBy: count > 0 ? "--count" : null));
    ReadyLine.Write(Console.Out);
    // Nothing to publish: exit here. The run's progress timer and its cancellation started the timer
    // thread and the first thread-pool workers: spawn to exit without a broker took 6.1 ms, now 3.3 ms.
    if (count == 0) return ExitCodes.Success;
    var report = new RunReport(count, "confirm") { HeapCheck = app.WantsHeapCheck(parsed) };

    // A stop ends the run between messages; the publishes in flight get 4 s more to be confirmed.
    using var abandon = new CancellationTokenSource();
    using var onStop = cancellationToken.Register(() => abandon.CancelAfter(TimeSpan.FromSeconds(4)));
    var run = new PublishRun(pipeline, connection, report, log);
    await run.RunAsync(count, parsed.GetValue(concurrencyOption), parsed.GetValue(rateOption), parsed.GetValue(sizeOption), cancellationToken, abandon.Token);
    log.Information("Published {Count} of {Requested} messages to {Destination}, each confirmed, in {Elapsed:0} ms ({Builder} pipeline, {Client}; {Republished} published again after {Reconnects} reconnects){Stopped}",
        run.Confirmed, count, route.Destination, report.Elapsed.TotalMilliseconds, pipeline.Builder, dispatch.Client,
        run.Republished, connection?.Reconnects ?? 0, cancellationToken.IsCancellationRequested ? "; stopped by a signal" : "");
    report.Write(Console.Out, app.WantsJson(parsed), run.Confirmed, ("client", dispatch.Client), ("concurrency", parsed.GetValue(concurrencyOption)),
        ("refused", run.Refused), ("republished", run.Republished), ("reconnects", connection?.Reconnects ?? 0));
    return run.Refused == 0 ? ExitCodes.Success
        : throw new AppException($"{run.Refused} of {count} messages not confirmed: the broker refused them (the last: {run.LastRefusal})");

    async Task<BrokerConnection?> ConnectAsync(BrokerSessionOptions? connecting)
    {
        if (connecting is null) return null;
        var connection = await BrokerOptions.ConnectAsync(connecting, client, log, cancellationToken);
        await dispatch.AttachAsync(connection, cancellationToken);
        return connection;
    }
});
