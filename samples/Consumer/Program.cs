using System.Diagnostics;
using Prewire.Diagnostics;
using Prewire.Hosting;
using Prewire.Hosting.Messaging;
using Prewire.Messaging;
using Prewire.Pipeline;

StartupClock.Start();

var app = new AppCommand("Prewire.Consumer", "Prewire consumer: consumes messages from RabbitMQ through the incoming pipeline and acknowledges them.");
var uri = app.AddBrokerUri();
var queue = app.AddOption("--queue", "Queue to consume; declared if missing.", "PREWIRE_QUEUE", "prewire.demo");
var count = app.AddCount("--count", "Messages to handle and acknowledge before exiting (0: exit once ready).", "PREWIRE_COUNT", 0);
var describe = app.AddFlag("--describe", "Print the incoming pipeline and exit.");

return app.Run(args, async (parsed, cancellationToken) =>
{
    using var log = AppLogging.Create(parsed.GetValue(app.LogLevel));
    var pipeline = PipelineSelection.Build<TransportReceiveContext>(SamplePipelines.Incoming(message =>
    {
        log.Debug("Handled {MessageId}: {Text}", message.MessageId, message.Message);
        return Task.CompletedTask;
    }));
    if (parsed.GetValue(describe))
    {
        Console.Write(pipeline.Describe());
        return ExitCodes.Success;
    }

    await using var broker = await BrokerSession.OpenAsync(parsed.GetValue(uri), parsed.GetValue(queue)!, "prewire-consumer", confirms: false,
        neededBy: parsed.GetValue(count) > 0 ? "--count" : null, log, cancellationToken);
    ReadyLine.Write(Console.Out);

    if (broker.Channel is null || parsed.GetValue(count) == 0) return ExitCodes.Success;
    var clock = Stopwatch.StartNew();
    var handled = await new RabbitMqReceiver(broker.Channel, pipeline, log).ReceiveAsync(parsed.GetValue(queue)!, parsed.GetValue(count), cancellationToken);
    log.Information("Handled and acknowledged {Count} messages from {Queue} in {Elapsed:0} ms ({Builder} pipeline)", handled, parsed.GetValue(queue), clock.Elapsed.TotalMilliseconds, pipeline.Builder);
    return ExitCodes.Success;
});
