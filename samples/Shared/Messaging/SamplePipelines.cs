using Prewire.Messaging;
using Prewire.Pipeline;
using Serilog;

namespace Prewire.Samples.Messaging;

/// <summary>The registrations the samples use, so every app (and its tests) builds the same pipelines.</summary>
public static class SamplePipelines
{
    /// <summary>
    /// Outgoing: stamp headers → serialize → <paramref name="route"/> → <paramref name="dispatch"/>.
    /// </summary>
    public static PipelineBuilder Outgoing(Route route, PipelineTerminator<DispatchContext> dispatch, TimeProvider? clock = null) =>
        Sending(("serialize", new TextMessages.Serialize(), "writes the text body as UTF-8, once"), route, dispatch, clock);

    /// <summary>
    /// Ingress (the HTTP endpoint's): stamp headers → pass the body as it is → <paramref name="route"/> → <paramref name="dispatch"/>.
    /// </summary>
    public static PipelineBuilder Ingress(Route route, PipelineTerminator<DispatchContext> dispatch, TimeProvider? clock = null) =>
        Sending(("pass-body", new RawMessages.Pass(), "hands the request body on as it is, no copy"), route, dispatch, clock);

    private static PipelineBuilder Sending((string Name, StageConnector<OutgoingLogicalContext, OutgoingPhysicalContext> Step, string Description) body,
        Route route, PipelineTerminator<DispatchContext> dispatch, TimeProvider? clock)
    {
        ArgumentNullException.ThrowIfNull(route);
        return new PipelineBuilder()
            .Register("stamp-headers", new StampHeaders(clock ?? TimeProvider.System), "stamps the time sent (the dispatch writes id and time as headers)")
            .Register(body.Name, body.Step, body.Description)
            .Register("route", route, route.Description)
            .Register("dispatch", dispatch, "publishes to the broker and waits for its confirm");
    }

    /// <summary>
    /// Incoming: the receive stage (duplicates in <paramref name="recent"/> skipped, failures retried up
    /// to <paramref name="maxAttempts"/> times then dead-lettered, malformed messages dead-lettered at
    /// once) → receive → deserialize → <paramref name="handler"/>.
    /// </summary>
    public static PipelineBuilder Incoming(Func<IncomingLogicalContext, Task> handler, IDeadLetterQueue deadLetters, RecentMessageIds recent, int maxAttempts, ILogger log) =>
        new PipelineBuilder()
            .Register("suppress-duplicates", new SuppressDuplicates(recent), "skips a message id handled recently (a redelivery)")
            .Register("retry-dead-letter", new RetryThenDeadLetter(deadLetters, maxAttempts, log), $"runs the rest up to {maxAttempts} times, then dead-letters; malformed at once")
            .Register("receive", new ReceivePhysical(), "takes the delivery's headers and body, without copying")
            .Register("deserialize", new TextMessages.Deserialize(), "reads the UTF-8 text body")
            .Register("handle", new InvokeHandler(handler), "runs the message handler");
}
