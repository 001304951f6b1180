namespace Prewire.Messaging;

/// <summary>
/// What Prewire's messaging emits for OpenTelemetry (or any <see cref="System.Diagnostics.ActivityListener"/>):
/// metrics (<see cref="MeterName"/>), a <c>publish</c> span (producer) around each dispatch, whichever client publishes, and a <c>process</c>
/// span (consumer) around each delivery a <see cref="BrokerReceiver"/> runs through its pipeline. The
/// trace context travels in the message's <c>traceparent</c> and <c>tracestate</c> headers, written and
/// read through <see cref="System.Diagnostics.DistributedContextPropagator.Current"/> as RabbitMQ.Client 7
/// does, so a trace continues whichever client is on either side.
/// </summary>
/// <remarks>
/// Nothing is made while nobody listens to <see cref="ActivitySourceName"/> or <see cref="MeterName"/>: no
/// span, no header, no clock read, no byte allocated per message.
/// </remarks>
public static class MessagingTelemetry
{
    /// <summary>The <see cref="System.Diagnostics.ActivitySource"/> of the publish and process spans.</summary>
    public const string ActivitySourceName = "Prewire.Messaging";

    /// <summary>
    /// The <see cref="System.Diagnostics.Metrics.Meter"/> of the conventions' messaging metrics:
    /// <c>messaging.client.sent.messages</c> and <c>messaging.client.operation.duration</c> (publishes, to the
    /// broker's confirm), <c>messaging.client.consumed.messages</c> and <c>messaging.process.duration</c>
    /// (deliveries, through the pipeline to their acknowledgement), each with <c>messaging.system</c>,
    /// <c>messaging.operation.type</c> and <c>.name</c>, <c>messaging.destination.name</c> and, on a
    /// failure, <c>error.type</c>.
    /// </summary>
    public const string MeterName = "Prewire.Messaging";
}
