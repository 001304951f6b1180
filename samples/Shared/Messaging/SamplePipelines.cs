using Prewire.Messaging;
using Prewire.Pipeline;

namespace Prewire.Samples.Messaging;

/// <summary>The registrations the samples use, so every app (and its tests) builds the same pipelines.</summary>
public static class SamplePipelines
{
    /// <summary>
    /// Outgoing: stamp headers → serialize → route to <paramref name="queue"/> → <paramref name="dispatch"/>.
    /// </summary>
    public static PipelineBuilder Outgoing(string queue, PipelineTerminator<DispatchContext> dispatch, TimeProvider? clock = null) =>
        new PipelineBuilder()
            .Register("stamp-headers", new StampHeaders(clock ?? TimeProvider.System), "adds message id, content type and time sent")
            .Register("serialize", new TextMessages.Serialize(), "writes the text body as UTF-8, once")
            .Register("route", new RouteToQueue(queue), $"addresses queue '{queue}' via the default exchange")
            .Register("dispatch", dispatch, "publishes to the broker and waits for its confirm");

    /// <summary>Incoming: receive → deserialize → <paramref name="handler"/>.</summary>
    public static PipelineBuilder Incoming(Func<IncomingLogicalContext, Task> handler) =>
        new PipelineBuilder()
            .Register("receive", new ReceivePhysical(), "takes the delivery's headers and body, without copying")
            .Register("deserialize", new TextMessages.Deserialize(), "reads the UTF-8 text body")
            .Register("handle", new InvokeHandler(handler), "runs the message handler");
}
