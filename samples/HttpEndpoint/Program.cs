using Prewire.HttpEndpoint;
using Prewire.Samples;
using Serilog;

StartupClock.Start();

var app = new AppCommand("Prewire.HttpEndpoint", "Prewire HTTP endpoint: a minimal API on Kestrel that serves GET /health.");
var urls = app.AddOption("--urls", "Addresses to listen on, separated by ';'.", "PREWIRE_URLS", "http://127.0.0.1:5080");

return app.Run(args, async (parsed, log, cancellationToken) =>
{
    // The content root is the binary's folder, not the working directory, and configuration files are
    // read once: watching them for changes walked the whole tree under the working directory at start
    // (12-20 ms to ready from an empty folder, 33-120 ms from the repository root, 73-440 ms from /tmp).
    var builder = WebApplication.CreateSlimBuilder(new WebApplicationOptions
    {
        ContentRootPath = AppContext.BaseDirectory,
        Args = ["--hostBuilder:reloadConfigOnChange=false"],
    });
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
