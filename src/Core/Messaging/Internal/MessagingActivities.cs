using System.Diagnostics;

namespace Prewire.Messaging.Internal;

/// <summary>
/// The publish and process spans, with the OpenTelemetry messaging conventions' attributes for RabbitMQ.
/// Every method returns at once, allocating nothing, while nobody listens to the source.
/// </summary>
internal static class MessagingActivities
{
    private static readonly ActivitySource _source = new(MessagingTelemetry.ActivitySourceName, typeof(MessagingActivities).Assembly.GetName().Version?.ToString());

    // The last span name made, kept so that publishing to one exchange makes its name once.
    private static SpanName? _lastPublish;

    /// <summary>
    /// Starts the producer span of <paramref name="context"/>'s publish (a child of the current span) and
    /// writes its context into <paramref name="headers"/>; null, and nothing written, when nobody listens.
    /// </summary>
    public static Activity? StartPublish(DispatchContext context, IDictionary<string, object?> headers)
    {
        if (!_source.HasListeners()) return null;
        var destination = Destination(context.Exchange);
        var name = Volatile.Read(ref _lastPublish);
        if (name is null || !ReferenceEquals(name.Destination, context.Exchange))
            Volatile.Write(ref _lastPublish, name = new SpanName(context.Exchange, "publish " + destination));
        var activity = _source.StartActivity(name.Name, ActivityKind.Producer);
        if (activity is null) return null;
        if (activity.IsAllDataRequested)
        {
            Tag(activity, "send", "publish", destination, context.MessageId, context.Body.Length)
                .SetTag("messaging.rabbitmq.destination.routing_key", context.RoutingKey);
        }
        DistributedContextPropagator.Current.Inject(activity, headers, static (carrier, key, value) => ((IDictionary<string, object?>)carrier!)[key] = value);
        return activity;
    }

    /// <summary>
    /// Starts the consumer span of one delivery from <paramref name="queue"/>, named <paramref name="name"/>:
    /// a child of the publisher's span when the headers carry its context, so one trace runs from the
    /// sender to the handler. Null when nobody listens; the id's text is made only for a recorded span.
    /// </summary>
    public static Activity? StartProcess(string name, string queue, TransportReceiveContext delivery)
    {
        if (!_source.HasListeners()) return null;
        DistributedContextPropagator.Current.ExtractTraceIdAndState(delivery.Headers, ReadHeader, out var traceParent, out var traceState);
        ActivityContext.TryParse(traceParent, traceState, isRemote: true, out var parent);
        var activity = _source.StartActivity(name, ActivityKind.Consumer, parent);
        if (activity is { IsAllDataRequested: true }) Tag(activity, "process", "process", queue, delivery.MessageId, delivery.Body.Length);
        return activity;
    }

    /// <summary>The destination a publish to <paramref name="exchange"/> names: the default exchange has no name, and RabbitMQ.Client's spans call it amq.default, as these do.</summary>
    public static string Destination(string exchange) => exchange.Length == 0 ? "amq.default" : exchange;

    /// <summary>Marks <paramref name="activity"/> failed by <paramref name="error"/>: error status, its type and the exception event.</summary>
    public static void Failed(Activity? activity, Exception error)
    {
        if (activity is null) return;
        activity.SetStatus(ActivityStatusCode.Error, error.Message);
        activity.SetTag("error.type", error.GetType().FullName);
        activity.AddException(error);
    }

    private static Activity Tag(Activity activity, string operationType, string operationName, string destination, string messageId, long bodySize)
    {
        foreach (var (key, value) in MessagingAttributes.Of(operationType, operationName, destination, error: null)) activity.SetTag(key, value);
        if (messageId.Length > 0) activity.SetTag("messaging.message.id", messageId);
        activity.SetTag("messaging.message.body.size", bodySize);
        return activity;
    }

    private static void ReadHeader(object? carrier, string name, out string? value, out IEnumerable<string>? values)
    {
        values = null;
        value = carrier is IReadOnlyDictionary<string, string> headers && headers.TryGetValue(name, out var found) ? found : null;
    }

    private sealed record SpanName(string Destination, string Name);
}
