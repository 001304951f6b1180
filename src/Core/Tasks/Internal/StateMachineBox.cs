using System.Threading.Tasks.Sources;

namespace Prewire.Tasks.Internal;

/// <summary>
/// Where a suspended <see cref="PooledValueTaskMethodBuilder"/> method lives, and what its
/// <see cref="ValueTask"/> is backed by. Given back to its pool when the result was read.
/// </summary>
internal abstract class StateMachineBox : IValueTaskSource
{
    private ManualResetValueTaskSourceCore<bool> _core;

    public short Version => _core.Version;

    public void SetResult() => _core.SetResult(true);

    public void SetException(Exception exception) => _core.SetException(exception);

    public void GetResult(short token)
    {
        try
        {
            _core.GetResult(token);
        }
        finally
        {
            _core.Reset();
            Recycle();
        }
    }

    public ValueTaskSourceStatus GetStatus(short token) => _core.GetStatus(token);

    public void OnCompleted(Action<object?> continuation, object? state, short token, ValueTaskSourceOnCompletedFlags flags) =>
        _core.OnCompleted(continuation, state, token, flags);

    protected abstract void Recycle();
}
