using System.Buffers;
using System.Runtime.CompilerServices;
using Prewire.Amqp;
using Prewire.Messaging.Internal;
using Prewire.Pipeline;
using Prewire.Tasks;

namespace Prewire.Messaging;

/// <summary>
/// Consumes the session's queue through one client and runs each delivery through the incoming
/// pipeline; the policy is the same whichever client delivers. A delivery is acknowledged only after
/// the pipeline completed (handled, dead-lettered or found a duplicate,
/// <see cref="TransportReceiveContext.Outcome"/>); one whose pipeline fails is rejected without
/// requeue (the queue dead-letters it), so nothing acknowledged was left unprocessed. A lost connection
/// is replaced through the <see cref="BrokerConnection"/> and consuming goes on.
/// </summary>
/// <typeparam name="TDelivery">What the client hands over for one delivery.</typeparam>
public abstract class BrokerReceiver<TDelivery>(BrokerConnection connection, Pipeline<TransportReceiveContext> pipeline, Action<string, Exception> rejected) : BrokerReceiver
{
    private int _started;
    private int _taken;
    private long _handled;
    private long _deadLettered;
    private long _duplicates;
    private long _rejected;
    private int _inFlight;
    private int _closing;
    private int? _count;
    private string _queue = "";
    private string _processSpan = "process";
    private TaskCompletionSource _done = new();
    private TaskCompletionSource _drained = new();

    /// <inheritdoc />
    public override ReceiveResult Progress =>
        new(Volatile.Read(ref _handled), Volatile.Read(ref _deadLettered), Volatile.Read(ref _duplicates), Volatile.Read(ref _rejected), 0);

    /// <inheritdoc />
    public override async Task<ReceiveResult> ReceiveAsync(int? count, ushort prefetch, CancellationToken stopping)
    {
        ArgumentNullException.ThrowIfNull(connection);
        if (Interlocked.Exchange(ref _started, 1) != 0) throw new InvalidOperationException("a receiver runs once");
        // Without a limit the broker pushes the whole queue to this channel; with a count, never more than it.
        var most = count ?? ushort.MaxValue;
        var limit = prefetch == 0 || prefetch > most ? (ushort)Math.Min(most, ushort.MaxValue) : prefetch;
        (_count, _done, _drained) = (count, new(TaskCreationOptions.RunContinuationsAsynchronously), new(TaskCreationOptions.RunContinuationsAsynchronously));
        var reconnectsBefore = connection.Reconnects;
        _queue = connection.Session.Options.Queue;
        _processSpan = "process " + _queue;
        using var onStop = stopping.Register(() => _done.TrySetResult());

        while (true)
        {
            var session = connection.Session;
            // Not cancelled by the stop: a stop that comes this early still ends in a normal return.
            var consumer = await StartAsync(session, limit).ConfigureAwait(false);
            if (consumer is not null) Consuming?.Invoke(true);

            var ended = consumer is null ? Task.Delay(Timeout.Infinite, CancellationToken.None) : CompletionOf(consumer);
            var first = await Task.WhenAny(_done.Task, session.Closed, ended).ConfigureAwait(false);
            var stopped = first == _done.Task;
            Consuming?.Invoke(false);
            // A consumer ended by its connection's loss (a close, or a failed read or send) is a loss, seen
            // before the session reports it.
            if (first == ended && !session.Closed.IsCompleted && !AmqpException.IsConnectionLoss(ended.Exception?.InnerException))
            {
                // The broker ended the consumer itself (its queue was deleted): nothing to reconnect for.
                await DrainAsync().ConfigureAwait(false);
                var why = ended.Exception?.InnerException;
                throw why as AmqpException ?? new AmqpException(AmqpExceptionKind.ConsumerCancelled, $"the consumer of {session.Options.Queue} ended: {why?.Message ?? "the broker cancelled it"}", why);
            }
            if (stopped)
            {
                if (consumer is not null) await StopAsync(session, consumer).ConfigureAwait(false);
                await DrainAsync().ConfigureAwait(false);
                return Result();
            }

            ConnectionLost?.Invoke(await session.Closed.ConfigureAwait(false));
            try
            {
                await connection.ReconnectAsync(session, stopping).ConfigureAwait(false);
            }
            catch (OperationCanceledException) when (stopping.IsCancellationRequested)
            {
                return Result();
            }
        }

        ReceiveResult Result() => Progress with { Reconnects = connection.Reconnects - reconnectsBefore };
    }

    // Waits for the deliveries still being handled to be settled, at most DrainTimeout.
    private Task<Task> DrainAsync()
    {
        // An exchange, not a volatile write: a full fence, as OnDeliveryAsync's decrement is, so that of
        // this read and that one at least one sees the other's write. With a plain store the two could
        // each miss the other (a store may pass a later load) and a stop would wait the whole timeout.
        Interlocked.Exchange(ref _closing, 1);
        if (Volatile.Read(ref _inFlight) == 0) _drained.TrySetResult();
        return Task.WhenAny(_drained.Task, Task.Delay(DrainTimeout, CancellationToken.None));
    }

    /// <summary>
    /// Starts consuming the session's queue with <paramref name="prefetch"/>, each delivery handed to
    /// <see cref="OnDeliveryAsync"/>; the consumer to stop later, or <see langword="null"/> when the
    /// session was lost meanwhile (its <see cref="BrokerSession.Closed"/> says why).
    /// </summary>
    protected abstract Task<object?> StartAsync(BrokerSession session, ushort prefetch);

    /// <summary>Completes, faulted with why, when the broker ended <paramref name="consumer"/> on a session still open (basic.cancel: its queue was deleted).</summary>
    protected abstract Task CompletionOf(object consumer);

    /// <summary>Stops <paramref name="consumer"/> taking deliveries (basic.cancel); lost already is fine.</summary>
    protected abstract Task StopAsync(BrokerSession session, object consumer);

    /// <summary>Acknowledges the delivery; a connection lost meanwhile throws <see cref="AmqpException"/> or <see cref="ObjectDisposedException"/>.</summary>
    protected abstract ValueTask AckAsync(TDelivery delivery);

    /// <summary>Rejects the delivery, requeued or not; a connection lost meanwhile throws as <see cref="AckAsync"/> does.</summary>
    protected abstract ValueTask RejectAsync(TDelivery delivery, bool requeue);

    /// <summary>
    /// The message id, headers and body of <paramref name="delivery"/>, valid while the pipeline runs, in
    /// a context from <see cref="TransportReceiveContext.Rent(string, IReadOnlyDictionary{string, string}, ReadOnlySequence{byte}, CancellationToken)"/>
    /// (no message id: ""): the receiver returns it once the delivery is settled.
    /// </summary>
    protected abstract TransportReceiveContext Read(TDelivery delivery);

    /// <summary>The headers of a delivered field table, as the pipeline's strings.</summary>
    protected static Dictionary<string, string> ToHeaders(IDictionary<string, object?>? table) => FieldTables.ToHeaders(table);

    /// <summary>Runs one delivery through the pipeline and settles it; a client calls it for each delivery.</summary>
    // Both state machines come from pools: a delivery costs the pipeline's own objects, not the receiver's.
    [AsyncMethodBuilder(typeof(PooledValueTaskMethodBuilder))]
    protected async ValueTask OnDeliveryAsync(TDelivery delivery)
    {
        // Stopping: neither handled nor acknowledged, so the broker requeues it when the channel closes.
        if (_done.Task.IsCompleted) return;
        if (_count is not null && Interlocked.Increment(ref _taken) > _count)
        {
            // Past the count while others are still handled (--concurrency above 1): one of them may turn
            // out a duplicate and give its place back, and the delivery meant to fill it must not queue
            // behind this one in the prefetch window, so this one goes back to the queue at once.
            Interlocked.Decrement(ref _taken);
            await SettleQuietlyAsync(delivery, requeue: true).ConfigureAwait(false);
            return;
        }
        Interlocked.Increment(ref _inFlight);
        try
        {
            var outcome = await HandleAsync(delivery).ConfigureAwait(false);
            var settled = outcome switch
            {
                ReceiveOutcome.Handled => Interlocked.Increment(ref _handled) + Volatile.Read(ref _deadLettered),
                ReceiveOutcome.DeadLettered => Interlocked.Increment(ref _deadLettered) + Volatile.Read(ref _handled),
                _ => -1,
            };
            if (_count is null) return;
            if (settled < 0) Interlocked.Decrement(ref _taken);
            else if (settled >= _count) _done.TrySetResult();
        }
        finally
        {
            if (Interlocked.Decrement(ref _inFlight) == 0 && Volatile.Read(ref _closing) == 1) _drained.TrySetResult();
        }
    }

    private async ValueTask SettleQuietlyAsync(TDelivery delivery, bool requeue)
    {
        try
        {
            await RejectAsync(delivery, requeue).ConfigureAwait(false);
        }
        catch (Exception e) when (e is AmqpException or ObjectDisposedException or IOException)
        {
            // Lost: the broker requeues it anyway.
        }
    }

    // The outcome, or null when the pipeline failed and the delivery was rejected.
    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder<>))]
    private async ValueTask<ReceiveOutcome?> HandleAsync(TDelivery delivery)
    {
        // Not the stop token: a delivery being handled when the stop comes finishes and is acknowledged.
        // No message id: "", which no duplicate check matches (delivery tags repeat across channels).
        // Pooled, as the body is borrowed: valid while the pipeline runs (a delivery costs the pipeline's own objects).
        var context = Read(delivery);
        using var activity = MessagingActivities.StartProcess(_processSpan, _queue, context);
        var started = MessagingMetrics.StartProcess(_queue);
        var failed = false;
        try
        {
            try
            {
                await pipeline.Invoke(context).ConfigureAwait(false);
            }
#pragma warning disable CA1031 // A failing message must not stop the consumer; it is rejected and reported.
            catch (Exception e)
#pragma warning restore CA1031
            {
                failed = true;
                MessagingActivities.Failed(activity, e);
                MessagingMetrics.Processed(_queue, started, e);
                rejected(context.MessageId, e);
                Interlocked.Increment(ref _rejected);
                await RejectAsync(delivery, requeue: false).ConfigureAwait(false);
                return null;
            }
            if (context.Outcome == ReceiveOutcome.Duplicate) Interlocked.Increment(ref _duplicates);
            var failure = context.Outcome == ReceiveOutcome.DeadLettered ? context.Failure : null;
            if (failure is not null) MessagingActivities.Failed(activity, failure);
            await AckAsync(delivery).ConfigureAwait(false);
            MessagingMetrics.Processed(_queue, started, failure);
            return context.Outcome;
        }
        catch (Exception e) when (e is AmqpException or ObjectDisposedException or IOException)
        {
            // The connection went while this delivery was handled: it is redelivered on the next one, and
            // a handled message then meets the duplicate check; a rejected one is simply tried again.
            return failed ? null : context.Outcome;
        }
        finally
        {
            context.Return();
        }
    }
}
