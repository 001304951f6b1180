using System.Diagnostics;
using Prewire.Diagnostics;
using Prewire.Hosting;
using Prewire.Hosting.Messaging;
using Prewire.Messaging;
using Prewire.Pipeline;

StartupClock.Start();

var app = new AppCommand("Prewire.Publisher", "Prewire publisher: publishes messages to RabbitMQ through the outgoing pipeline.");
var uri = app.AddBrokerUri();
var queue = app.AddOption("--queue", "Queue to publish to; declared if missing.", "PREWIRE_QUEUE", "prewire.demo");
var count = app.AddCount("--count", "Messages to publish, each awaiting the broker's confirm.", "PREWIRE_COUNT", 0);
var amqpPublisher = app.AddFlag("--amqp-publisher", "Publish with Prewire's zero-copy AmqpPublisher instead of RabbitMQ.Client.");
var describe = app.AddFlag("--describe", "Print the outgoing pipeline and exit.");

return app.Run(args, async (parsed, cancellationToken) =>
{
    using var log = AppLogging.Create(parsed.GetValue(app.LogLevel));
    await using var dispatch = BrokerDispatch.Create(parsed.GetValue(amqpPublisher));
    var pipeline = PipelineSelection.Build<OutgoingLogicalContext>(SamplePipelines.Outgoing(parsed.GetValue(queue)!, dispatch));
    if (parsed.GetValue(describe))
    {
        Console.Write(pipeline.Describe());
        return ExitCodes.Success;
    }

    await using var broker = await BrokerSession.OpenAsync(parsed.GetValue(uri), parsed.GetValue(queue)!, "prewire-publisher", confirms: true,
        neededBy: parsed.GetValue(count) > 0 ? "--count" : null, log, cancellationToken);
    if (broker.Channel is not null) await dispatch.AttachAsync(broker, cancellationToken);
    ReadyLine.Write(Console.Out);

    var clock = Stopwatch.StartNew();
    for (var i = 1; i <= parsed.GetValue(count); i++)
        await pipeline.Invoke(new OutgoingLogicalContext(Guid.NewGuid().ToString("N"), $"message {i} of {parsed.GetValue(count)}", cancellationToken));
    if (parsed.GetValue(count) > 0)
        log.Information("Published {Count} messages to {Queue}, each confirmed, in {Elapsed:0} ms ({Builder} pipeline, {Client})", parsed.GetValue(count), parsed.GetValue(queue), clock.Elapsed.TotalMilliseconds, pipeline.Builder, dispatch.Client);
    return ExitCodes.Success;
});
