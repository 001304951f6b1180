using System.Diagnostics;
using Prewire.Amqp;
using Prewire.Messaging;
using Prewire.RabbitMQ;
using Prewire.Samples;
using Prewire.Samples.Messaging;

StartupClock.Start();

var app = new AppCommand("Prewire.Publisher", "Prewire publisher: publishes messages to RabbitMQ through the outgoing pipeline.");
var queueOption = app.AddBroker("Queue to publish to; declared if missing.");
var countOption = app.AddCount("--count", "Messages to publish, each awaiting the broker's confirm.", "PREWIRE_COUNT", 0);
var amqpPublisher = app.AddFlag("--amqp-publisher", "Publish with Prewire's zero-copy AmqpPublisher instead of RabbitMQ.Client.");
app.AddDescribe("outgoing");
app.AddWarmupReport();

return app.Run(args, async (parsed, log, cancellationToken) =>
{
    var (queue, count) = (parsed.GetValue(queueOption)!, parsed.GetValue(countOption));
    await using BrokerDispatch dispatch = parsed.GetValue(amqpPublisher) ? new AmqpPublisherDispatch() : new RabbitMqDispatch();
    if (app.WantsWarmupReport(parsed))
    {
        // Through the broker when given one, else to an in-process sink; one text length, so every message
        // costs the same. Its stdout is the one JSON line.
        log = Serilog.Core.Logger.None;
        await using var connected = await ConnectAsync(app.GetBrokerUri(parsed, log, neededBy: null));
        return await WarmupReport.RunAsync(() => PipelineSelection.Build<OutgoingLogicalContext>(SamplePipelines.Outgoing(queue, connected is null ? new WarmupReport.Sink<DispatchContext>() : dispatch)),
            () => new OutgoingLogicalContext(Guid.NewGuid().ToString("N"), "warm-up message", cancellationToken), count, Console.Out);
    }
    var pipeline = PipelineSelection.Build<OutgoingLogicalContext>(SamplePipelines.Outgoing(queue, dispatch));
    if (app.Describe(parsed, pipeline)) return ExitCodes.Success;

    await using var session = await ConnectAsync(app.GetBrokerUri(parsed, log, neededBy: count > 0 ? "--count" : null));
    ReadyLine.Write(Console.Out);

    // A stop ends the loop between messages; the publish in flight gets 4 s more to be confirmed.
    using var abandon = new CancellationTokenSource();
    using var onStop = cancellationToken.Register(() => abandon.CancelAfter(TimeSpan.FromSeconds(4)));
    var (clock, confirmed) = (Stopwatch.StartNew(), 0);
    try
    {
        for (; confirmed < count && !cancellationToken.IsCancellationRequested; confirmed++)
            await pipeline.Invoke(new OutgoingLogicalContext(Guid.NewGuid().ToString("N"), $"message {confirmed + 1} of {count}", abandon.Token));
    }
    catch (Exception e) when (e is AmqpException or IOException)
    {
        throw new AppException($"{count - confirmed} of {count} messages not confirmed ({confirmed} were): {e.Message}", ExitCodes.Failure, e);
    }
    if (count > 0)
    {
        log.Information("Published {Count} of {Requested} messages to {Queue}, each confirmed, in {Elapsed:0} ms ({Builder} pipeline, {Client}){Stopped}",
            confirmed, count, queue, clock.Elapsed.TotalMilliseconds, pipeline.Builder, dispatch.Client, cancellationToken.IsCancellationRequested ? "; stopped by a signal" : "");
    }
    return ExitCodes.Success;

    // The session (RabbitMQ.Client) declares the queue whichever client publishes.
    async Task<BrokerSession?> ConnectAsync(AmqpUri? uri)
    {
        if (uri is null) return null;
        var session = await BrokerSession.OpenAsync(new() { Uri = uri, Queue = queue, ClientName = "prewire-publisher", Confirms = true }, cancellationToken);
        log.Information("Connected to {Broker} as {Client}", uri, session.Options.ClientName);
        if (dispatch is AmqpPublisherDispatch zeroCopy)
            await zeroCopy.ConnectAsync(new AmqpPublisherOptions { Uri = session.Options.Uri, ClientName = session.Options.ClientName }, cancellationToken);
        else
            ((RabbitMqDispatch)dispatch).Attach(session);
        return session;
    }
});
