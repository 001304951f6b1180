using System.Diagnostics;

namespace Prewire.HttpEndpoint;

internal sealed partial class IngressMetrics
{
    /// <summary>One publish being timed.</summary>
    internal readonly struct Publishing(IngressMetrics metrics, long started)
    {
        public void Confirmed()
        {
            metrics._confirm.Record(Stopwatch.GetElapsedTime(started).TotalSeconds);
            metrics._accepted.Add(1);
            metrics._inFlight.Add(-1);
        }

        public void Failed(string reason)
        {
            metrics._inFlight.Add(-1);
            metrics.Rejected(reason);
        }
    }
}
