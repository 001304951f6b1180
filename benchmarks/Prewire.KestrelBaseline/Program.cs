using System.Globalization;
using System.IO.Pipelines;

// POST /nothing reads the body to its end and answers 202 with no body: what any endpoint taking a
// request body costs in Kestrel and ASP.NET Core before it does anything. POST /pending does the same
// but answers from the thread pool, so Kestrel is handed a pending task, as it is by any endpoint that
// waits for something (the ingress endpoint waits for a broker confirm); it is matched ahead of routing,
// as the ingress endpoint's POST is. GET /allocated: the bytes this process allocated so far, for the
// benchmark to read before and after a load.
var builder = WebApplication.CreateSlimBuilder(new WebApplicationOptions
{
    ContentRootPath = AppContext.BaseDirectory,
    Args = ["--hostBuilder:reloadConfigOnChange=false"],
});
builder.Logging.ClearProviders();
builder.WebHost.UseUrls(args.Length > 0 ? args[0] : "http://127.0.0.1:5090");

await using var app = builder.Build();
app.Use(next => http => HttpMethods.IsPost(http.Request.Method) && http.Request.Path.Value == "/pending" ? Pending.AnswerAsync(http) : next(http));
app.UseRouting();
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
app.MapGet("/allocated", () => GC.GetTotalAllocatedBytes(precise: true).ToString(CultureInfo.InvariantCulture));
await app.RunAsync();

internal static class Pending
{
    // The least a pending answer can be: one Task, run on the thread pool with the context as its state.
    public static Task AnswerAsync(HttpContext http)
    {
        var reader = http.Request.BodyReader;
        if (!reader.TryRead(out var read)) return ReadRestAsync(reader, http);
        reader.AdvanceTo(read.Buffer.End);
        if (!read.IsCompleted) return ReadRestAsync(reader, http);
        // A block, not an expression: an assignment's value would make it a Task<int>, 8 B more.
        return Task.Factory.StartNew(static state => { ((HttpContext)state!).Response.StatusCode = StatusCodes.Status202Accepted; },
            http, CancellationToken.None, TaskCreationOptions.DenyChildAttach, TaskScheduler.Default);
    }

    // A body not all there yet (64 KiB comes in several reads): the rest, then the same answer.
    private static async Task ReadRestAsync(PipeReader reader, HttpContext http)
    {
        while (true)
        {
            var read = await reader.ReadAsync(http.RequestAborted);
            reader.AdvanceTo(read.Buffer.End);
            if (read.IsCompleted) break;
        }
        http.Response.StatusCode = StatusCodes.Status202Accepted;
    }
}
