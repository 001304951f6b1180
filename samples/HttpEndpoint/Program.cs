using Prewire.HttpEndpoint;
using Prewire.Samples;
using Serilog;

StartupClock.Start();

var app = new AppCommand("Prewire.HttpEndpoint", "Prewire HTTP endpoint: a minimal API on Kestrel that serves GET /health.");
var urls = app.AddOption("--urls", "Addresses to listen on, separated by ';'.", "PREWIRE_URLS", "http://127.0.0.1:5080");

return app.Run(args, async (parsed, log, cancellationToken) =>
{
    var builder = WebApplication.CreateSlimBuilder();
    builder.WebHost.UseUrls(parsed.GetValue(urls)!.Split(';', StringSplitOptions.RemoveEmptyEntries));
    builder.Logging.ClearProviders().AddSerilog(log);
    builder.Services.ConfigureHttpJsonOptions(json => json.SerializerOptions.TypeInfoResolverChain.Insert(0, AppJsonContext.Default));
    builder.Services.Configure<HostOptions>(host => host.ShutdownTimeout = TimeSpan.FromSeconds(3));

    await using var web = builder.Build();
    web.MapGet("/health", () => new Health("healthy"));

    await web.StartAsync(cancellationToken);
    ReadyLine.Write(Console.Out);
    await web.WaitForShutdownAsync(cancellationToken);
    return ExitCodes.Success;
});
