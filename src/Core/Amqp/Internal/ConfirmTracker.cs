using Prewire.Tasks;

namespace Prewire.Amqp.Internal;

/// <summary>
/// Outstanding publishes by sequence number, completed by the broker's basic.ack / basic.nack
/// (single or multiple), failed by a basic.return seen before their ack, or all failed at once when
/// the connection or channel dies. Nothing is ever reported confirmed that the broker did not ack.
/// </summary>
internal sealed class ConfirmTracker
{
    private const int InitialCapacity = 64;

    // Presized: grown step by step, a channel's table kept reallocating for as long as a run found a new
    // peak of outstanding confirms (16 channels, 16 publishers: every few thousand publishes).
    private readonly Dictionary<ulong, PooledCompletion<bool>> _pending = new(InitialCapacity);
    private readonly Dictionary<ulong, AmqpException> _returned = [];
    private ulong _lowest = 1;
    private Exception? _failure;

    public PooledCompletion<bool> Register(ulong sequence)
    {
        var confirm = PooledCompletion.Rent<bool>();
        lock (_pending)
        {
            if (_failure is not null) confirm.TrySetException(_failure);
            else _pending.Add(sequence, confirm);
        }
        return confirm;
    }

    public void Returned(ulong sequence, ushort replyCode, string replyText)
    {
        lock (_pending) _returned[sequence] = new AmqpException(AmqpExceptionKind.Returned, replyCode, replyText);
    }

    public void Ack(ulong deliveryTag, bool multiple) => Complete(deliveryTag, multiple, nack: false);

    public void Nack(ulong deliveryTag, bool multiple) => Complete(deliveryTag, multiple, nack: true);

    public void FailAll(Exception failure)
    {
        lock (_pending)
        {
            _failure ??= failure;
            foreach (var (_, confirm) in _pending) confirm.TrySetException(failure);
            _pending.Clear();
            _returned.Clear();
        }
    }

    private void Complete(ulong deliveryTag, bool multiple, bool nack)
    {
        lock (_pending)
        {
            var from = multiple ? _lowest : deliveryTag;
            for (var sequence = from; sequence <= deliveryTag; sequence++)
            {
                if (!_pending.Remove(sequence, out var confirm)) continue;
                if (_returned.Count > 0 && _returned.Remove(sequence, out var returned)) confirm.TrySetException(returned);
                else if (nack) confirm.TrySetException(new AmqpException(AmqpExceptionKind.Nacked, 0, $"delivery tag {sequence}"));
                else confirm.TrySetResult(true);
            }
            while (_lowest <= deliveryTag && !_pending.ContainsKey(_lowest)) _lowest++;
        }
    }
}
