using System.Diagnostics;
using Prewire.Messaging.Internal;

namespace Prewire.Messaging;

/// <summary>
/// What one publish reports (<see cref="MessagingTelemetry"/>): its span, whose trace context goes into
/// the message's headers, and the messages-sent count and publish duration. A dispatch starts it once
/// the headers are set, then calls <see cref="Succeeded"/> when the broker confirmed or
/// <see cref="Failed"/> with why not, once. Costs nothing while nobody listens.
/// </summary>
public readonly struct PublishTelemetry : IEquatable<PublishTelemetry>
{
    private readonly Activity? _activity;
    private readonly string? _destination;
    private readonly long _started;

    private PublishTelemetry(Activity? activity, string destination, long started) => (_activity, _destination, _started) = (activity, destination, started);

    /// <summary>
    /// Starts the telemetry of publishing <paramref name="context"/>: the span, a child of the current
    /// one, and its trace context written into <paramref name="headers"/>, the message's AMQP headers.
    /// </summary>
    public static PublishTelemetry Start(DispatchContext context, IDictionary<string, object?> headers)
    {
        ArgumentNullException.ThrowIfNull(context);
        ArgumentNullException.ThrowIfNull(headers);
        return new(MessagingActivities.StartPublish(context, headers), MessagingActivities.Destination(context.Exchange), MessagingMetrics.StartPublish());
    }

    /// <summary>The broker confirmed the message.</summary>
    public void Succeeded()
    {
        if (_destination is null) return;
        MessagingMetrics.Published(_destination, _started, error: null);
        _activity?.Dispose();
    }

    /// <summary>The publish failed: the span says why (error status, the exception), the count and duration carry its type.</summary>
    public void Failed(Exception error)
    {
        ArgumentNullException.ThrowIfNull(error);
        if (_destination is null) return;
        MessagingActivities.Failed(_activity, error);
        MessagingMetrics.Published(_destination, _started, error);
        _activity?.Dispose();
    }

    /// <inheritdoc />
    public bool Equals(PublishTelemetry other) => ReferenceEquals(_activity, other._activity) && ReferenceEquals(_destination, other._destination) && _started == other._started;

    /// <inheritdoc />
    public override bool Equals(object? obj) => obj is PublishTelemetry other && Equals(other);

    /// <inheritdoc />
    public override int GetHashCode() => HashCode.Combine(_activity, _destination, _started);

    /// <summary>Whether both are the telemetry of the same publish.</summary>
    public static bool operator ==(PublishTelemetry left, PublishTelemetry right) => left.Equals(right);

    /// <summary>Whether they are the telemetry of different publishes.</summary>
    public static bool operator !=(PublishTelemetry left, PublishTelemetry right) => !left.Equals(right);
}
