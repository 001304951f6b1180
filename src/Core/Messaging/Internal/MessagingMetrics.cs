using System.Diagnostics;
using System.Diagnostics.Metrics;

namespace Prewire.Messaging.Internal;

/// <summary>
/// The OpenTelemetry messaging conventions' metrics (meter <see cref="MessagingTelemetry.MeterName"/>):
/// messages sent and consumed, publish and process durations. While nobody listens an instrument is
/// off: no clock is read and nothing is recorded or allocated.
/// </summary>
internal static class MessagingMetrics
{
    // The conventions' advice for messaging durations, in seconds.
    private static readonly InstrumentAdvice<double> _durations = new() { HistogramBucketBoundaries = [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10] };

    private static readonly Meter _meter = new(MessagingTelemetry.MeterName, typeof(MessagingMetrics).Assembly.GetName().Version?.ToString());

    private static readonly Counter<long> _sent = _meter.CreateCounter<long>("messaging.client.sent.messages", "{message}", "Messages a producer attempted to send to the broker.");

    private static readonly Histogram<double> _operation = _meter.CreateHistogram<double>("messaging.client.operation.duration", "s",
        "Duration of a publish, from the dispatch to the broker's confirm.", tags: null, _durations);

    private static readonly Counter<long> _consumed = _meter.CreateCounter<long>("messaging.client.consumed.messages", "{message}", "Messages delivered to the application.");

    private static readonly Histogram<double> _process = _meter.CreateHistogram<double>("messaging.process.duration", "s",
        "Duration of processing one delivery: the incoming pipeline and its acknowledgement.", tags: null, _durations);

    /// <summary>The time a publish starts, or 0 when nobody listens for its duration.</summary>
    public static long StartPublish() => _operation.Enabled ? Stopwatch.GetTimestamp() : 0;

    /// <summary>A publish to <paramref name="destination"/> ended, confirmed or failed by <paramref name="error"/>.</summary>
    public static void Published(string destination, long started, Exception? error)
    {
        if (!_sent.Enabled && started == 0) return;
        var tags = MessagingAttributes.Of("send", "publish", destination, error);
        _sent.Add(1, tags);
        if (started != 0) _operation.Record(Stopwatch.GetElapsedTime(started).TotalSeconds, tags);
    }

    /// <summary>A delivery from <paramref name="queue"/> reached the application; its processing starts (0 when nobody listens for its duration).</summary>
    public static long StartProcess(string queue)
    {
        if (_consumed.Enabled) _consumed.Add(1, MessagingAttributes.Of("receive", "deliver", queue, error: null));
        return _process.Enabled ? Stopwatch.GetTimestamp() : 0;
    }

    /// <summary>A delivery from <paramref name="queue"/> was processed and settled, or failed by <paramref name="error"/>.</summary>
    public static void Processed(string queue, long started, Exception? error)
    {
        if (started != 0) _process.Record(Stopwatch.GetElapsedTime(started).TotalSeconds, MessagingAttributes.Of("process", "process", queue, error));
    }
}
