using System.Globalization;

// POST /nothing reads the body to its end and answers 202 with no body: what any endpoint taking a
// request body costs in Kestrel and ASP.NET Core before it does anything. POST /waiting/{type} does
// the same with the ingress endpoint's shape: a route value, and an answer after a wait (a yield), so
// the request's task is pending when Kestrel gets it. GET /allocated: the bytes this process allocated
// so far, for the benchmark to read before and after a load.
var builder = WebApplication.CreateSlimBuilder(new WebApplicationOptions
{
    ContentRootPath = AppContext.BaseDirectory,
    Args = ["--hostBuilder:reloadConfigOnChange=false"],
});
builder.Logging.ClearProviders();
builder.WebHost.UseUrls(args.Length > 0 ? args[0] : "http://127.0.0.1:5090");

await using var app = builder.Build();
app.MapPost("/nothing", async (HttpContext http) =>
{
    var reader = http.Request.BodyReader;
    while (true)
    {
        var read = await reader.ReadAsync(http.RequestAborted);
        reader.AdvanceTo(read.Buffer.End);
        if (read.IsCompleted) break;
    }
    http.Response.StatusCode = StatusCodes.Status202Accepted;
});
app.MapPost("/waiting/{type}", async (HttpContext http) =>
{
    _ = http.Request.RouteValues["type"];
    var reader = http.Request.BodyReader;
    while (true)
    {
        var read = await reader.ReadAsync(http.RequestAborted);
        reader.AdvanceTo(read.Buffer.End);
        if (read.IsCompleted) break;
    }
    await Task.Yield();
    http.Response.StatusCode = StatusCodes.Status202Accepted;
});
app.MapGet("/allocated", () => GC.GetTotalAllocatedBytes(precise: true).ToString(CultureInfo.InvariantCulture));
await app.RunAsync();
