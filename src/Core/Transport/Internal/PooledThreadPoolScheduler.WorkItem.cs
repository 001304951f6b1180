using Prewire.Tasks;

namespace Prewire.Transport.Internal;

internal sealed partial class PooledThreadPoolScheduler
{
    private sealed class WorkItem : IThreadPoolWorkItem
    {
        private Action<object?>? _action;
        private object? _state;

        public static WorkItem Rent(Action<object?> action, object? state)
        {
            var item = ObjectPool<WorkItem>.TryRent() ?? new WorkItem();
            (item._action, item._state) = (action, state);
            return item;
        }

        // Back to the pool before the continuation runs: it may schedule the next one at once.
        public void Execute()
        {
            var (action, state) = (_action!, _state);
            (_action, _state) = (null, null);
            ObjectPool<WorkItem>.Return(this);
            action(state);
        }
    }
}
