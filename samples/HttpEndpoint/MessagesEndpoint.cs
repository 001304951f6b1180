using System.IO.Pipelines;
using System.Runtime.CompilerServices;
using System.Text.Json;
using Microsoft.Net.Http.Headers;
using Prewire.Amqp;
using Prewire.Messaging;
using Prewire.Pipeline;
using Prewire.Samples;
using Prewire.Samples.Messaging;
using Prewire.Tasks;

namespace Prewire.HttpEndpoint;

/// <summary>
/// <c>POST /messages/{type}</c>: the request body, as Kestrel's pipe holds it, goes through the ingress
/// pipeline to the broker, and the answer waits for the broker's confirm: 202 with the message id once
/// confirmed, 503 when it could not be (nothing acknowledged was lost: a 503 is to be sent again).
/// </summary>
internal sealed class MessagesEndpoint(Pipeline<OutgoingLogicalContext> pipeline, BrokerLink broker, IngressMetrics metrics)
{
    // The 202's JSON is written by a writer kept per thread: Kestrel's own writer per request would be
    // one more allocation each. Safe because it is used between two awaits, never across one.
    [ThreadStatic]
    private static Utf8JsonWriter? _json;

    // Clients send the same few Content-Types again and again: the last valid one is not parsed again.
    private static string? _lastValidContentType;

    /// <summary>The route, as mapped for routing; <see cref="AheadOfRouting"/> takes its common case before routing does.</summary>
    public const string Route = "/messages/{type}";

    private const string Prefix = "/messages/";

    private readonly TypeNames _types = new(capacity: 1024);

    /// <summary>
    /// Answers the request itself (a 202 written here, a problem executed), so no result object is made
    /// for the common case. A plain <see cref="RequestDelegate"/>: with no parameters to bind there is
    /// nothing for the request-delegate generator to do, and its wrapper was one more state machine.
    /// </summary>
    public Task AcceptAsync(HttpContext http)
    {
        // Only here can a type be invalid: ahead of routing, only valid ones are taken.
        var type = (string)http.Request.RouteValues["type"]!;
        return TypeNames.IsValid(type)
            ? AcceptAsync(http, type)
            : Rejected("invalid-type", StatusCodes.Status400BadRequest, "Invalid message type", "The type is 1 to 128 letters, digits, '.', '_' or '-', starting with a letter or digit.").ExecuteAsync(http);
    }

    /// <summary>
    /// Middleware ahead of routing that answers <c>POST /messages/{type}</c> for a valid type itself: routing
    /// would make a <see cref="RouteValueDictionary"/>, its array and the type's string for every request
    /// (about 100 B), and the endpoint middleware one more state machine to await the pending answer.
    /// Everything else (another method, more segments, an invalid or empty type) goes on to routing, which
    /// maps <see cref="Route"/> to the same handler and answers 404 and 405 as it does for any route.
    /// </summary>
    public RequestDelegate AheadOfRouting(RequestDelegate next) => http =>
    {
        var request = http.Request;
        if (HttpMethods.IsPost(request.Method) && request.Path.Value is { } path
            && path.StartsWith(Prefix, StringComparison.OrdinalIgnoreCase)
            && TypeNames.IsValid(path.AsSpan(Prefix.Length)))
        {
            return AcceptAsync(http, _types.Get(path.AsSpan(Prefix.Length)));
        }
        return next(http);
    };

    // Kestrel takes a Task, and a request that waits for a confirm cannot hand it a cached one. The
    // method's state machine comes from a pool; what is made per waiting request is the bare task
    // Kestrel awaits (64 B), not a box holding the whole state machine.
    [AsyncMethodBuilder(typeof(PooledTaskMethodBuilder))]
    private async Task AcceptAsync(HttpContext http, string type)
    {
        var request = http.Request;
        if (Validate(request) is { } invalid)
        {
            await invalid.ExecuteAsync(http);
            return;
        }

        // The whole body, left in the pipe: examined but not consumed, so each read returns all of it so
        // far. Read here, not in a helper: a suspension (a body in several reads) then uses this method's
        // pooled box instead of making one of its own.
        var reader = request.BodyReader;
        ReadResult body;
        try
        {
            if (!reader.TryRead(out body)) body = await reader.ReadAsync(http.RequestAborted);
            while (!body.IsCompleted)
            {
                reader.AdvanceTo(body.Buffer.Start, body.Buffer.End);
                body = await reader.ReadAsync(http.RequestAborted);
            }
        }
        catch (BadHttpRequestException e)
        {
            // Kestrel's own verdicts: 413 past the limit, 400 for a truncated or badly chunked body.
            await (e.StatusCode == StatusCodes.Status413PayloadTooLarge
                ? Rejected("body-too-large", e.StatusCode, "Body too large", e.Message)
                : Rejected("bad-body", e.StatusCode, "Bad request body", e.Message)).ExecuteAsync(http);
            return;
        }

        // A value, not a string: the dispatch formats it into the frame and the 202 into its JSON.
        var id = MessageIds.Next();
        var raw = RawMessages.Message.Rent(type, ContentTypeOf(request), body.Buffer);
        var message = OutgoingLogicalContext.Rent(id, raw);
        var publishing = metrics.Publish();
        IResult? failed = null;
        try
        {
            await pipeline.Invoke(message);
            publishing.Confirmed();
        }
        catch (AmqpException e)
        {
            publishing.Failed(e.Kind is AmqpExceptionKind.Nacked or AmqpExceptionKind.Returned ? "broker-refused" : "broker-unavailable");
            failed = Problems.Unavailable(e.Message);
        }
        finally
        {
            // Only now: until the confirm, the message's body is this memory.
            message.Dispose();
            raw.Return();
            reader.AdvanceTo(body.Buffer.End);
        }
        if (failed is null) WriteAccepted(http.Response, id);
        else await failed.ExecuteAsync(http);
    }

    private IResult? Validate(HttpRequest request)
    {
        // The body is published as it came: an encoded one would reach consumers still encoded.
        if (request.Headers.ContentEncoding.Count > 0 && !request.Headers.ContentEncoding.All(e => string.Equals(e, "identity", StringComparison.OrdinalIgnoreCase)))
            return Rejected("content-encoding", StatusCodes.Status415UnsupportedMediaType, "Unsupported content encoding", "Send the body without a Content-Encoding.");
        if (!IsMediaType(ContentTypeOf(request)))
            return Rejected("content-type", StatusCodes.Status400BadRequest, "Invalid Content-Type", "The Content-Type header is not a media type.");
        if (!broker.IsReady)
        {
            metrics.Rejected("broker-unavailable");
            return Problems.Unavailable(broker.NotReadyReason);
        }
        return null;
    }

    private static string ContentTypeOf(HttpRequest request) => request.ContentType ?? "application/octet-stream";

    private static bool IsMediaType(string contentType)
    {
        if (string.Equals(contentType, Volatile.Read(ref _lastValidContentType), StringComparison.Ordinal)) return true;
        if (!MediaTypeHeaderValue.TryParse(contentType, out _)) return false;
        Volatile.Write(ref _lastValidContentType, contentType);
        return true;
    }

    // {"id":"<32 hex digits>"}: the id the message was published with (its AMQP message-id and
    // prewire.message-id), written by hand: one property, and the serializer would want it as a string.
    private static void WriteAccepted(HttpResponse response, Guid id)
    {
        response.StatusCode = StatusCodes.Status202Accepted;
        response.ContentType = "application/json; charset=utf-8";
        var json = _json ??= new Utf8JsonWriter(response.BodyWriter);
        json.Reset(response.BodyWriter);
        Span<char> text = stackalloc char[32];
        id.TryFormat(text, out _, "N");
        json.WriteStartObject();
        json.WriteString("id"u8, text);
        json.WriteEndObject();
        json.Flush();
    }

    private IResult Rejected(string reason, int status, string title, string detail)
    {
        metrics.Rejected(reason);
        return Problems.Of(status, title, detail);
    }
}
