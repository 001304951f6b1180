namespace Prewire.HttpEndpoint;

/// <summary>Every error the endpoints answer, as application/problem+json (RFC 9457): a title, a detail for people, never a stack trace.</summary>
internal static class Problems
{
    public static IResult Of(int status, string title, string detail) => TypedResults.Problem(detail, statusCode: status, title: title);

    /// <summary>The broker could not take the message: not connected, lost while publishing, or it nacked or returned it.</summary>
    public static IResult Unavailable(string why) =>
        Of(StatusCodes.Status503ServiceUnavailable, "Broker unavailable", $"{why}. The message was not accepted; send it again later.");
}
