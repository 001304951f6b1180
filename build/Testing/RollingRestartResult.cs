using System.Globalization;

namespace Prewire.Testing;

/// <summary>What a rolling restart did to the messages, by id, and to the POSTs' latency.</summary>
/// <param name="Accepted">Ids answered 202.</param>
/// <param name="Lost">Ids answered 202 that no Consumer handled.</param>
/// <param name="Duplicates">Handlings beyond the first of an id (at least once allows them).</param>
/// <param name="Unavailable">503 answers (not accepted; sent again).</param>
/// <param name="Refused">POSTs refused or cut off (an instance restarting; sent again).</param>
/// <param name="Retries">POSTs sent again after a 503 or a refusal.</param>
/// <param name="Failed">Messages given up without a 202.</param>
/// <param name="LeftInQueues">Messages still in the queue or its dead-letter queue at the end (read by pika).</param>
/// <param name="Before">POST latency before the first restart.</param>
/// <param name="During">POST latency while an app or a node restarted.</param>
public sealed record RollingRestartResult(
    int Accepted, int Lost, int Duplicates, int Unavailable, int Refused, int Retries, int Failed, int LeftInQueues,
    (double P50, double P99) Before, (double P50, double P99) During)
{
    /// <summary>Nothing accepted was lost and nothing was left behind.</summary>
    public bool Passed => Lost == 0 && LeftInQueues == 0 && Failed == 0 && Accepted > 0;

    /// <summary>The summary's last line.</summary>
    public string Line => string.Create(CultureInfo.InvariantCulture, $"rolling restart: accepted {Accepted}, lost {Lost}, duplicates {Duplicates}, 503s {Unavailable}");

    public void Write(TextWriter output)
    {
        ArgumentNullException.ThrowIfNull(output);
        output.WriteLine(string.Create(CultureInfo.InvariantCulture,
            $"POST latency before restarts: p50 {Before.P50:0.0} ms, p99 {Before.P99:0.0} ms; during restarts: p50 {During.P50:0.0} ms, p99 {During.P99:0.0} ms"));
        output.WriteLine(string.Create(CultureInfo.InvariantCulture,
            $"retries {Retries} (after 503s {Unavailable}, refused or cut off {Refused}); given up {Failed}; left in the queues {LeftInQueues}"));
        output.WriteLine(Line);
    }
}
