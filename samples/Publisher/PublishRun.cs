using System.Diagnostics;
using Prewire.Amqp;
using Prewire.Messaging;
using Prewire.Pipeline;
using Prewire.Samples;
using Prewire.Samples.Messaging;
using Serilog;

namespace Prewire.Publisher;

/// <summary>
/// Publishes a number of messages through the pipeline, a fixed number in flight, each until the broker
/// confirmed it: a message whose connection was lost is published again on the connection that
/// replaces it (at least once: the broker may have had it), one the broker nacked is published again
/// up to 3 times, one it returned (no queue) is counted as failed. Stopping ends it between messages.
/// </summary>
internal sealed class PublishRun(Pipeline<OutgoingLogicalContext> pipeline, BrokerConnection? connection, RunReport report, ILogger log)
{
    private const int MaxNacks = 3;

    private int _next = -1;
    private int _confirmed;
    private int _refused;
    private int _republished;
    private BrokerSession? _reportedLoss;

    /// <summary>Messages the broker confirmed.</summary>
    public int Confirmed => Volatile.Read(ref _confirmed);

    /// <summary>Messages the broker refused: returned as unroutable, or nacked every time.</summary>
    public int Refused => Volatile.Read(ref _refused);

    /// <summary>Publishes made again after a lost connection.</summary>
    public int Republished => Volatile.Read(ref _republished);

    /// <summary>Why the last refused message was refused.</summary>
    public string? LastRefusal { get; private set; }

    /// <summary>Publishes <paramref name="count"/> messages, <paramref name="concurrency"/> at a time.</summary>
    /// <param name="count">Messages to publish.</param>
    /// <param name="concurrency">Publishes awaiting their confirms at once.</param>
    /// <param name="size">Body bytes: the text padded to it (0: the text as it is).</param>
    /// <param name="rate">Messages per second at most, 0 for no cap: message i is not published before i / rate seconds into the run.</param>
    /// <param name="stopping">Ends the run between messages.</param>
    /// <param name="abandon">Gives up on the publishes in flight (and on reconnecting).</param>
    /// <exception cref="AppException">The connection was lost and could not be replaced: how many were not confirmed, and why.</exception>
    public async Task RunAsync(int count, int concurrency, int rate, int size, CancellationToken stopping, CancellationToken abandon)
    {
        using var done = new CancellationTokenSource();
        var progress = report.ShowProgressAsync(() => (Confirmed, $"{Confirmed} confirmed, {Refused} refused, {Republished} published again"), log, done.Token);
        try
        {
            await Task.WhenAll(Enumerable.Range(0, Math.Max(1, Math.Min(concurrency, count))).Select(_ => PublishAsync(count, rate, size, stopping, abandon))).ConfigureAwait(false);
        }
        catch (AmqpException e)
        {
            throw new AppException($"{count - Confirmed} of {count} messages not confirmed ({Confirmed} were): {e.Message}", ExitCodes.Failure, e);
        }
        catch (OperationCanceledException) when (stopping.IsCancellationRequested)
        {
            // Abandoned after the stop: what was confirmed is reported.
        }
        finally
        {
            await done.CancelAsync().ConfigureAwait(false);
            await progress.ConfigureAwait(false);
        }
    }

    private async Task PublishAsync(int count, int rate, int size, CancellationToken stopping, CancellationToken abandon)
    {
        int index;
        // One text for all of this loop's messages, set for each: its publishes are awaited one by one.
        var body = new TextMessages.Numbered { Count = count, Size = size };
        while (!stopping.IsCancellationRequested && (index = Interlocked.Increment(ref _next)) < count)
        {
            if (rate > 0 && TimeSpan.FromSeconds((double)index / rate) - report.Elapsed is { Ticks: > 0 } early)
                await Task.Delay(early, stopping).ConfigureAwait(false);
            // One id for every publish of a message: the consumer recognises a copy by it. A value: the
            // dispatch formats it into the frame.
            var id = MessageIds.Next();
            body.Index = index + 1;
            var nacks = 0;
            while (true)
            {
                var (session, started) = (connection?.Session, Stopwatch.GetTimestamp());
                try
                {
                    // Disposed once its pipeline completed, whichever way: it goes back to its pool with its body buffer.
                    using var message = OutgoingLogicalContext.Rent(id, body, abandon);
                    await pipeline.Invoke(message).ConfigureAwait(false);
                    report.Latency.Record(Stopwatch.GetElapsedTime(started));
                    report.Done(Interlocked.Increment(ref _confirmed));
                    break;
                }
                catch (AmqpException e) when (e.ConnectionLost && connection is not null && session is not null)
                {
                    if (Interlocked.Exchange(ref _reportedLoss, session) != session)
                        log.Warning("{Error}; reconnecting, then publishing again what was not confirmed", e.Message);
                    await connection.ReconnectAsync(session, abandon).ConfigureAwait(false);
                    Interlocked.Increment(ref _republished);
                }
                // A nack says the broker could not take the message (a node shutting down, a queue's
                // leader moving): publish it again, a few times. A return (no queue bound) or a closed
                // channel would fail the same way every time.
                catch (AmqpException e) when (e.Kind == AmqpExceptionKind.Nacked && ++nacks < MaxNacks)
                {
                    Interlocked.Increment(ref _republished);
                }
                catch (AmqpException e) when (!e.ConnectionLost)
                {
                    Interlocked.Increment(ref _refused);
                    LastRefusal = e.Message;
                    break;
                }
            }
        }
    }
}
