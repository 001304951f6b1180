using OpenTelemetry.Metrics;
using OpenTelemetry.Trace;
using Prewire.HttpEndpoint;
using Prewire.Messaging;
using Prewire.Samples;
using Prewire.Samples.Messaging;

StartupClock.Start();

var app = new AppCommand("Prewire.HttpEndpoint", "Prewire HTTP endpoint: POST /messages/{type} publishes the request body to RabbitMQ through the outgoing pipeline and answers once the broker confirmed it.");
var urls = app.AddOption("--urls", "Addresses to listen on (http://), separated by ';'.", "PREWIRE_URLS", "http://127.0.0.1:5080");
var broker = app.AddBroker("Queue the messages go to; declared if missing, with its dead-letter queue.");
var maxBodyOption = app.AddCount("--max-body-size", "Largest request body in bytes; a larger one is answered 413.", "PREWIRE_MAX_BODY_SIZE", 1024 * 1024);
var maxConnectionsOption = app.AddCount("--max-connections", "Connections open at once; more wait in the listen backlog.", "PREWIRE_MAX_CONNECTIONS", 10_000);
app.ConfigureTracing = tracing => tracing.AddAspNetCoreInstrumentation(); // Kestrel's request span, the parent of each publish span
app.ExportedMeters.Add(IngressMetrics.MeterName);
var inline = app.AddFlag("--inline-scheduling", "Run request code on the socket's I/O thread (Kestrel's UnsafePreferInlineScheduling); see README before using it.");
app.AddWarmupReport();
var warmupCount = app.AddCount("--count", "With --warmup-report: requests to warm up with, then three windows of that many measured.", "PREWIRE_COUNT", 0);
warmupCount.Hidden = true;

return app.Run(args, async (parsed, log, cancellationToken) =>
{
    var addresses = Server.Addresses(parsed.GetValue(urls)!);
    var (options, client) = (broker.Session(parsed, "prewire-http-endpoint", confirms: true), broker.Client(parsed));
    if (app.WantsWarmupReport(parsed))
    {
        // The ingress pipeline to an in-process sink, each request's body as Kestrel's pipe would hold it.
        var body = new System.Buffers.ReadOnlySequence<byte>("{\"warm-up\":\"request\"}"u8.ToArray());
        return await WarmupReport.RunAsync(() => PipelineSelection.Build<OutgoingLogicalContext>(SamplePipelines.Ingress(new Prewire.Samples.Messaging.Route(options.Exchange, options.RoutingKey), new WarmupReport.Sink<DispatchContext>())),
            () => OutgoingLogicalContext.Rent(Guid.NewGuid(), RawMessages.Message.Rent("warm-up", "application/json", body), cancellationToken), parsed.GetValue(warmupCount), Console.Out,
            handled: message => ((RawMessages.Message)message.Message).Return());
    }
    await using var dispatch = client.CreateDispatch();
    var pipeline = PipelineSelection.Build<OutgoingLogicalContext>(SamplePipelines.Ingress(new Prewire.Samples.Messaging.Route(options.Exchange, options.RoutingKey), dispatch));
    await using var link = new BrokerLink(BrokerOptions.Connecting(options, log, neededBy: null), client, dispatch, log);
    using var metrics = new IngressMetrics();
    var messages = new MessagesEndpoint(pipeline, link, metrics);

    // The empty builder: the options come from the command line and PREWIRE_* (above), so no configuration
    // files (watching them walked the working directory's tree: 12-440 ms to ready), and Kestrel without
    // HTTPS or HTTP/3 (only http:// is served): 470 KB less than the slim builder and sooner to ready.
    var builder = WebApplication.CreateEmptyBuilder(new WebApplicationOptions { ContentRootPath = AppContext.BaseDirectory });
    builder.WebHost.UseKestrelCore();
    builder.Services.AddRoutingCore();
    Server.Configure(builder, addresses, parsed.GetValue(maxBodyOption), parsed.GetValue(maxConnectionsOption), parsed.GetValue(inline), log);
    Server.ConfigureLogging(builder, log, parsed.GetValue(app.LogLevel));
    builder.Services.ConfigureHttpJsonOptions(json => json.SerializerOptions.TypeInfoResolverChain.Insert(0, AppJsonContext.Default));
    // Within the 5 s a container runtime gives: requests in flight finish (202 or 503), then the broker connections close.
    builder.Services.Configure<HostOptions>(host => host.ShutdownTimeout = TimeSpan.FromSeconds(3));

    await using var web = builder.Build();
    web.Use(messages.AheadOfRouting);
    web.UseRouting();
    web.MapPost(MessagesEndpoint.Route, messages.AcceptAsync);
    using var meterProvider = ScrapedMetrics.Build(app.ServiceName);
    web.MapPrometheusScrapingEndpoint("/metrics", meterProvider, configureBranchedPipeline: null, optionsName: null);
    web.MapGet("/health/live", () => new Health("live"));
    web.MapGet("/health/ready", () => link.IsReady ? Results.Ok(new Health("ready")) : Results.Json(new Health("not ready", link.NotReadyReason), AppJsonContext.Default.Health, statusCode: StatusCodes.Status503ServiceUnavailable));

    link.Start();
    await Server.StartAsync(web, cancellationToken);
    ReadyLine.Write(Console.Out);
    await web.WaitForShutdownAsync(cancellationToken);
    return ExitCodes.Success;
});
