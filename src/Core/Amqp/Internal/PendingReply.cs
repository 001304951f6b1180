using Prewire.Framing.Internal;
using Prewire.Framing.Internal.Methods;

namespace Prewire.Amqp.Internal;

/// <summary>A synchronous method's reply a caller waits for, read on the read loop while its frame is valid.</summary>
internal abstract class PendingReply
{
    public abstract AmqpCommandId Expected { get; }

    public abstract void Complete(in Frame frame);

    public abstract void Fail(Exception reason);
}

/// <summary>The reply <typeparamref name="T"/>, read from its frame into the task.</summary>
internal sealed class PendingReply<T> : PendingReply
    where T : struct, IAmqpMethod<T>
{
    private readonly TaskCompletionSource<T> _reply = new(TaskCreationOptions.RunContinuationsAsynchronously);

    public Task<T> Task => _reply.Task;

    public override AmqpCommandId Expected => T.CommandId;

    public override void Complete(in Frame frame)
    {
        try
        {
            _reply.TrySetResult(AmqpFrameReader.ReadMethod<T>(frame));
        }
        catch (AmqpProtocolException e)
        {
            _reply.TrySetException(e);
        }
    }

    public override void Fail(Exception reason) => _reply.TrySetException(reason);
}
