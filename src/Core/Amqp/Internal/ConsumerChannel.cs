using Prewire.Framing.Internal;
using Prewire.Framing.Internal.Methods;

namespace Prewire.Amqp.Internal;

/// <summary>
/// A consumer's channel: deliveries put together on the read loop (<see cref="DeliveryAssembler"/>)
/// and handed to the handler there, up to <see cref="AmqpConsumerOptions.Concurrency"/> at once, the
/// rest queued in arrival order; settlements written by <see cref="Settlements"/>.
/// </summary>
/// <remarks>
/// The handler runs on the read loop until its first await: one that completes synchronously costs no
/// hand-off at all. One that goes asynchronous keeps its delivery (and the pipe blocks its body lies
/// in) while the read loop reads on: the pipe moves past the frames, the blocks stay held until the
/// handler is done. What a consumer holds is bounded by the prefetch count.
/// </remarks>
internal sealed class ConsumerChannel : AmqpChannel
{
    private readonly AmqpDeliveryHandler _handler;
    private readonly int _concurrency;
    private readonly bool _autoSettle;
    private readonly DeliveryAssembler _assembler;
    private readonly Stack<AmqpDelivery> _free = new();
    private readonly Queue<AmqpDelivery> _waiting = new();
    // Lock objects, not monitors on the collections: a turn costs about half the instructions (callgrind).
    private readonly Lock _assembling = new(), _dispatching = new(), _freeLock = new();
    private readonly TaskCompletionSource _completion = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private readonly TaskCompletionSource _drained = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private int _running;
    private bool _stopping;

    public ConsumerChannel(AmqpConnection connection, AmqpDeliveryHandler handler, int concurrency, bool autoSettle = true, bool coalesceAcks = true)
    {
        _autoSettle = autoSettle;
        _handler = handler;
        _concurrency = concurrency;
        _assembler = new DeliveryAssembler(Rent);
        Settlements = new Settlements(connection, this, coalesceAcks);
    }

    public Settlements Settlements { get; }

    /// <summary>Completes when the consumer was stopped here; faults when the broker cancelled it or the channel or connection ended.</summary>
    public Task Completion => _completion.Task;

    /// <summary>Deliveries handed to the handler so far.</summary>
    public long Delivered { get; private set; }

    public override void OnFrame(in Frame frame, AmqpCommandId method)
    {
        if (method == AmqpCommandId.BasicCancel)
        {
            // The broker cancelled us (the queue was deleted): what is being handled finishes and is settled.
            Stop(new AmqpException(AmqpExceptionKind.ConsumerCancelled, "the broker cancelled the consumer (basic.cancel): its queue was deleted, or its node left the cluster", null));
            return;
        }
        AmqpDelivery? delivery;
        lock (_assembling) delivery = _assembler.Add(frame);
        if (delivery is null) return;
        Delivered++;
        lock (_dispatching)
        {
            if (_stopping)
            {
                // Neither handled nor settled: the broker requeues it when the channel closes.
                Return(delivery);
                return;
            }
            if (_running == _concurrency)
            {
                _waiting.Enqueue(delivery);
                return;
            }
            _running++;
        }
        RunFrom(delivery);
    }

    public void Settle(ulong deliveryTag, SettleKind kind) => Settlements.Add(deliveryTag, kind);

    /// <summary>Takes no more deliveries (those queued go back unsettled); completes when those being handled are done.</summary>
    public Task StopTakingAsync()
    {
        Stop(null);
        return _drained.Task;
    }

    /// <summary>An asynchronous handler finished: settle its delivery, then run the queued ones.</summary>
    public void Handled(AmqpDelivery delivery)
    {
        Finish(delivery, delivery.Handling);
        RunFrom(Next());
    }

    protected override void OnClosed(Exception reason)
    {
        lock (_assembling) _assembler.Abandon();
        Stop(reason);
    }

    // Runs deliveries, one after another while their handlers complete synchronously, until one goes
    // asynchronous (its continuation carries on) or none is waiting.
    private void RunFrom(AmqpDelivery? delivery)
    {
        while (delivery is not null)
        {
            ValueTask handling;
            try
            {
#pragma warning disable CA2012 // Consumed once: read by Finish when complete, else after its awaiter's continuation.
                handling = _handler(delivery);
#pragma warning restore CA2012
            }
#pragma warning disable CA1031 // A handler's failure is its delivery's verdict (rejected), not the consumer's end.
            catch (Exception)
#pragma warning restore CA1031
            {
                if (_autoSettle) delivery.SettleIfNot(failed: true);
                Return(delivery);
                delivery = Next();
                continue;
            }
            if (!handling.IsCompleted)
            {
                delivery.Handling = handling;
                handling.GetAwaiter().UnsafeOnCompleted(delivery.OnHandled);
                return;
            }
            Finish(delivery, handling);
            delivery = Next();
        }
    }

    // Only ever given a completed task: read once, here.
    private void Finish(AmqpDelivery delivery, ValueTask handling)
    {
        var failed = false;
        try
        {
#pragma warning disable CA2012 // Completed: its result is read exactly once.
            handling.GetAwaiter().GetResult();
#pragma warning restore CA2012
        }
#pragma warning disable CA1031 // As above.
        catch (Exception)
#pragma warning restore CA1031
        {
            failed = true;
        }
        delivery.Handling = default;
        if (_autoSettle) delivery.SettleIfNot(failed);
        Return(delivery);
    }

    // The next queued delivery, its slot kept; or none, the slot given back.
    private AmqpDelivery? Next()
    {
        lock (_dispatching)
        {
            if (!_stopping && _waiting.TryDequeue(out var next)) return next;
            if (--_running == 0 && _stopping) _drained.TrySetResult();
            return null;
        }
    }

    private void Stop(Exception? reason)
    {
        lock (_dispatching)
        {
            if (!_stopping)
            {
                _stopping = true;
                while (_waiting.TryDequeue(out var queued)) Return(queued);
                if (_running == 0) _drained.TrySetResult();
            }
        }
        if (reason is null) _completion.TrySetResult();
        else _completion.TrySetException(reason);
        _completion.Task.Exception?.Handle(static _ => true);
    }

    private AmqpDelivery Rent()
    {
        lock (_freeLock) return _free.TryPop(out var delivery) ? delivery : new AmqpDelivery(this);
    }

    private void Return(AmqpDelivery delivery)
    {
        DeliveryAssembler.Release(delivery);
        delivery.Body = default;
        lock (_freeLock) _free.Push(delivery);
    }
}
