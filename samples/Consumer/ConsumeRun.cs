using Prewire.Amqp;
using Prewire.Messaging;
using Prewire.Samples;
using Serilog;

namespace Prewire.Consumer;

/// <summary>The Consumer's run: the receiver taking its count, with progress shown while it works and a failure in one line.</summary>
internal sealed class ConsumeRun(BrokerReceiver receiver, RunReport report, ILogger log)
{
    /// <summary>Receives <paramref name="count"/> messages (<see langword="null"/>: until stopped), or fewer when <paramref name="stopping"/> comes first.</summary>
    /// <exception cref="AppException">The connection was lost and could not be replaced.</exception>
    public async Task<ReceiveResult> RunAsync(int? count, int prefetch, CancellationToken stopping)
    {
        using var done = new CancellationTokenSource();
        var progress = report.ShowProgressAsync(() => (receiver.Progress.Settled, $"{receiver.Progress.DeadLettered} dead-lettered, {receiver.Progress.Duplicates} duplicates skipped"), log, done.Token);
        try
        {
            return await receiver.ReceiveAsync(count, (ushort)Math.Min(prefetch, ushort.MaxValue), stopping).ConfigureAwait(false);
        }
        catch (AmqpException e)
        {
            throw new AppException($"stopped after {receiver.Progress.Settled}{(count is { } n ? $" of {n}" : "")} messages: {e.Message}", ExitCodes.Failure, e);
        }
        finally
        {
            await done.CancelAsync().ConfigureAwait(false);
            await progress.ConfigureAwait(false);
        }
    }
}
