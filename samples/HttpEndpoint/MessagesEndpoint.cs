using System.IO.Pipelines;
using System.Runtime.CompilerServices;
using System.Text.Json;
using Microsoft.Net.Http.Headers;
using Prewire.Amqp;
using Prewire.Messaging;
using Prewire.Pipeline;
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

    /// <summary>
    /// ASCII letters, digits, '.', '_' and '-', 1 to 128 of them, starting with a letter or digit: safe as
    /// an AMQP header value and in logs. A loop, not a regex: Regex would link its engine into the binary.
    /// </summary>
    private static bool IsTypeName(string type)
    {
        if (type.Length is 0 or > 128 || !char.IsAsciiLetterOrDigit(type[0])) return false;
        foreach (var c in type)
        {
            if (!char.IsAsciiLetterOrDigit(c) && c is not ('.' or '_' or '-')) return false;
        }
        return true;
    }

    /// <summary>
    /// Answers the request itself (a 202 written here, a problem executed), so no result object is made
    /// for the common case. A plain <see cref="RequestDelegate"/>: with no parameters to bind there is
    /// nothing for the request-delegate generator to do, and its wrapper was one more state machine.
    /// </summary>
    /// <remarks>
    /// Kestrel takes a <see cref="Task"/>, and a request that waits for a confirm cannot hand it a cached
    /// one. The work is a method whose state machine comes from a pool; what is made per request is the
    /// bare task over it (<see cref="ValueTask.AsTask"/>), not a box holding the whole state machine.
    /// </remarks>
    public Task AcceptAsync(HttpContext http)
    {
        var accepting = AcceptCoreAsync(http);
        if (!accepting.IsCompletedSuccessfully) return accepting.AsTask();
        accepting.GetAwaiter().GetResult();
        return Task.CompletedTask;
    }

    [AsyncMethodBuilder(typeof(PooledValueTaskMethodBuilder))]
    private async ValueTask AcceptCoreAsync(HttpContext http)
    {
        var request = http.Request;
        var type = (string)request.RouteValues["type"]!;
        if (Validate(request, type) is { } invalid)
        {
            await invalid.ExecuteAsync(http);
            return;
        }

        ReadResult body;
        try
        {
            body = await ReadToEndAsync(request.BodyReader, http.RequestAborted);
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
        var id = Guid.NewGuid();
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
            request.BodyReader.AdvanceTo(body.Buffer.End);
        }
        if (failed is null) WriteAccepted(http.Response, id);
        else await failed.ExecuteAsync(http);
    }

    private IResult? Validate(HttpRequest request, string type)
    {
        if (!IsTypeName(type))
            return Rejected("invalid-type", StatusCodes.Status400BadRequest, "Invalid message type", "The type is 1 to 128 letters, digits, '.', '_' or '-', starting with a letter or digit.");
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

    // The whole body, left in the pipe: examined but not consumed, so each read returns all of it so far.
    private static ValueTask<ReadResult> ReadToEndAsync(PipeReader reader, CancellationToken cancellationToken)
    {
        if (!reader.TryRead(out var result)) return ReadRestAsync(reader, cancellationToken);
        // A small body is all there by the time the endpoint runs: no state machine for it.
        if (result.IsCompleted) return new(result);
        reader.AdvanceTo(result.Buffer.Start, result.Buffer.End);
        return ReadRestAsync(reader, cancellationToken);
    }

    private static async ValueTask<ReadResult> ReadRestAsync(PipeReader reader, CancellationToken cancellationToken)
    {
        while (true)
        {
            var result = await reader.ReadAsync(cancellationToken);
            if (result.IsCompleted) return result;
            reader.AdvanceTo(result.Buffer.Start, result.Buffer.End);
        }
    }
}
