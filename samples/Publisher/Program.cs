using Prewire.Diagnostics;
using Prewire.Hosting;

StartupClock.Start();

var app = new AppCommand("Prewire.Publisher", "Prewire publisher: publishes messages to RabbitMQ.");
var uri = app.AddBrokerUri();

return app.Run(args, async (parsed, cancellationToken) =>
{
    using var log = AppLogging.Create(parsed.GetValue(app.LogLevel));
    await using var connection = await Broker.ConnectIfConfiguredAsync(parsed.GetValue(uri), "prewire-publisher", log, cancellationToken);

    ReadyLine.Write(Console.Out);
    return ExitCodes.Success;
});
